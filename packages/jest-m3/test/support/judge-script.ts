// A scripted model that judges: a rule answers the forced `verdict` call from the criteria
// and the evidence in the judge's prompt (the reply must state each amount a tool returned),
// and rules keyed on criteria words give a judge's faults (text instead of the call, a 500,
// a hang, a middling score).
import { MCPTestKit, type ExecutionResult, type TurnResult } from "@jest-m3/core";
import { testHarness } from "@jest-m3/core/testing";
import {
  startScriptedModel,
  type JsonObject,
  type Rule,
  type ScriptedModel,
  type StepContext,
} from "@jest-m3/scripted-model";
import { shipping } from "@jest-m3/test-support";

/** The criteria words that make the scripted judge misbehave, for fault tests. */
export const JUDGE_FAULTS = {
  text: "answer in words",
  http500: "judge returns 500",
  hang: "judge hangs",
  middling: "a middling answer",
  badScore: "a score of 7",
} as const;

/** `{ pass, score, reasoning }`: pass when every amount a tool returned is in a reply. */
export function amountVerdict(context: StepContext): JsonObject {
  const text = context.user;
  if (text.includes(JUDGE_FAULTS.middling)) {
    return { pass: true, score: 0.6, reasoning: "Partly met." };
  }
  if (text.includes(JUDGE_FAULTS.badScore)) return { pass: true, score: 7, reasoning: "Over." };
  const amounts = [...text.matchAll(/"amount":(\d+(?:\.\d+)?)/g)].map((match) => match[1]!);
  const replies = [...text.matchAll(/^Reply:\n((?: {2}.*\n?)+)/gm)].map((match) => match[1]!);
  const missing = amounts.filter((amount) => !replies.some((reply) => reply.includes(amount)));
  const pass = amounts.length > 0 && missing.length === 0;
  return {
    pass,
    score: pass ? 1 : 0,
    reasoning:
      amounts.length === 0
        ? "No tool returned an amount."
        : pass
          ? `The reply states the quoted amount ${amounts.join(", ")}.`
          : `The reply does not state the quoted amount ${missing.join(", ")}.`,
  };
}

/**
 * A rule that answers the judge's forced `verdict` call with `{ pass, score, reasoning }`
 * when the judge's prompt holds `user` (a criterion's words, or "## Criteria" for any judge).
 */
export function verdictRule(
  name: string,
  user: string,
  pass: boolean,
  score: number,
  reasoning: string,
): Rule {
  const args = { pass, score, reasoning };
  return { name, when: { user }, steps: [{ call: "judge:verdict", args }] };
}

/** The judge's rules, first in a script (the judge's prompt quotes the agent's). */
export const judgeRules: Rule[] = [
  {
    name: "judge in words",
    when: { user: JUDGE_FAULTS.text },
    steps: [{ reply: "I think it passes." }],
  },
  { name: "judge 500", when: { user: JUDGE_FAULTS.http500 }, steps: [{ http: 500 }] },
  { name: "judge hangs", when: { user: JUDGE_FAULTS.hang }, steps: [{ hang: true }] },
  {
    name: "judge",
    when: { user: "## Criteria" },
    steps: [{ call: "judge:verdict", args: amountVerdict }],
  },
];

/** What {@link judgedTurns} keeps for the file's tests. */
export interface JudgedTurns {
  /** The scripted model playing {@link judgeRules} (the judge). */
  readonly model: ScriptedModel;
  /** "The quote is 9 USD." after a shipping_quote returning 9: meets the criteria. */
  readonly right: TurnResult;
  /** "Your parcel ships soon." after a shipping_quote: leaves the amount out. */
  readonly wrong: TurnResult;
  /** The session's result (both turns). */
  readonly result: ExecutionResult;
}

/**
 * Starts the judge model and, through the test harness on the example's shipping server,
 * one session of two turns, a right and a wrong reply (call at a file's top level: it runs
 * in beforeAll and closes the kit and the model in afterAll).
 */
export function judgedTurns(): JudgedTurns {
  let model: ScriptedModel | undefined;
  const kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  let right: TurnResult | undefined;
  let wrong: TurnResult | undefined;
  let result: ExecutionResult | undefined;
  beforeAll(async () => {
    model = await startScriptedModel({ rules: judgeRules });
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const session = agent!.session({ server: shipping, timeout: 30_000 });
    {
      await using open = await session.open();
      right = await open.send(
        'call shipping:shipping_quote {"weight_kg":2,"zone":"local"}\nreply The quote is 9 USD.',
      );
      wrong = await open.send(
        'call shipping:shipping_quote {"weight_kg":3,"zone":"regional"}\nreply Your parcel ships soon.',
      );
    }
    result = session.result;
  });
  afterAll(async () => {
    await kit.close();
    await model?.close();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("judgedTurns: the session runs in beforeAll");
    return value;
  };
  return {
    get model() {
      return ready(model);
    },
    get right() {
      return ready(right);
    },
    get wrong() {
      return ready(wrong);
    },
    get result() {
      return ready(result);
    },
  };
}
