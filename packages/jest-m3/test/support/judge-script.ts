// A scripted model that judges: a rule answers the forced `verdict` call from the criteria
// and the evidence in the judge's prompt (the reply must state each amount a tool returned),
// and rules keyed on criteria words give a judge's faults (text instead of the call, a 500,
// a hang, a middling score).
import type { JsonObject, Rule, StepContext } from "@jest-m3/scripted-model";

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
