/**
 * What the SDK and agent tests share: the quote scripts, a scripted model per test, the
 * fault scripts, and the checks of a two-turn agent run on the shipping server.
 */
import {
  startScriptedModel,
  type Script,
  type ScriptedModel,
  type Step,
} from "@jest-m3/scripted-model";
import { TempHome, type AgentProcess } from "./agent-process";

/** One quote of 2 kg local, then a reply with the amount. */
export const QUOTE: Script = {
  rules: [
    {
      name: "quote",
      when: { user: /quote/i },
      steps: [
        { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
        { reply: "Shipping costs {{result.amount}} {{result.currency}}." },
      ],
    },
  ],
};

/** A quote of the weight and zone the prompt names (`quote 2 kg local`), then `reply`. */
export function quoteScript(reply: string): Script {
  return {
    rules: [
      {
        name: "quote",
        when: { user: /quote (\d+) kg (\w+)/i },
        steps: [
          {
            call: "shipping:shipping_quote",
            args: { weight_kg: "{{match.1 | number}}", zone: "{{match.2}}" },
          },
          { reply },
        ],
      },
    ],
  };
}

/** Two quotes at once (local and regional), then the `then` steps, if any. */
export function parallelQuotes(...then: Step[]): Script {
  const quote = (zone: string) => ({ call: "shipping:shipping_quote", args: { zone } });
  return { rules: [{ steps: [{ parallel: [quote("local"), quote("regional")] }, ...then] }] };
}

/** A script whose every request gets the one fault `step` (`{ http: 500 }`, `{ cut: true }`). */
export function faultScript(step: Step): Script {
  return { rules: [{ steps: [step] }] };
}

/**
 * A scripted model per test: `start` closes the one before it (a test may start two) and
 * starts one on `script`; the last is closed after each test.
 */
export function modelPerTest(): { start(script: Script): Promise<ScriptedModel> } {
  let model: ScriptedModel | undefined;
  afterEach(async () => {
    await model?.close();
    model = undefined;
  });
  return {
    async start(script) {
      await model?.close();
      model = await startScriptedModel(script);
      return model;
    },
  };
}

/** One test's agent run: its scripted model, its temporary home and the agents it started. */
export interface AgentRun {
  /** Starts the test's scripted model on `script`. */
  start(script: Script): Promise<ScriptedModel>;
  /** A fresh temporary home for the test. */
  home(): TempHome;
  /** Agents started by the test, killed after it. */
  readonly agents: AgentProcess[];
}

/**
 * Per test: its agents killed (by process group) and awaited, its model closed and its home
 * removed after it.
 */
export function agentRunPerTest(): AgentRun {
  let model: ScriptedModel | undefined;
  let home: TempHome | undefined;
  const agents: AgentProcess[] = [];
  afterEach(async () => {
    for (const agent of agents.splice(0)) {
      agent.kill();
      await agent.exited;
    }
    await model?.close();
    home?.dispose();
    [model, home] = [undefined, undefined];
  });
  return {
    agents,
    async start(script) {
      model = await startScriptedModel(script);
      return model;
    },
    home() {
      home = new TempHome();
      return home;
    },
  };
}

/** The shipping server's own log of a two-turn run: 2 kg local, then 3 kg regional. */
export function expectTwoQuotes(home: TempHome): void {
  expect(home.calls()).toEqual([
    { tool: "shipping_quote", arguments: { weight_kg: 2, zone: "local" } },
    { tool: "shipping_quote", arguments: { weight_kg: 3, zone: "regional" } },
  ]);
}

/**
 * The journal of a two-turn run: its first side request as `side` (dialect, decision…), a
 * call and a reply per turn, each call of `tool` as the agent names it, and no problem.
 */
export function expectTwoTurnJournal(
  model: ScriptedModel,
  side: Record<string, unknown>,
  tool: string,
): void {
  expect(model.journal.entries.filter((e) => e.side)[0]).toMatchObject(side);
  expect(model.journal.decisions.map((d) => d.kind)).toEqual(["call", "reply", "call", "reply"]);
  const calls = model.journal.decisions.filter((d) => d.kind === "call");
  expect(calls.map((d) => d.calls[0]?.name)).toEqual([tool, tool]);
  model.journal.assertNoProblems();
}
