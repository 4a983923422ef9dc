/**
 * One real Codex session (the real binary, the scripted model, the example's shipping
 * server) whose result the matcher tests assert on: a turn with one shipping_quote and a
 * turn with two in parallel.
 */
import { MCPTestKit, type ExecutionResult, type TurnResult } from "jest-m3";
import codexHarness from "@jest-m3/harness-codex";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { seedRule, shipping } from "@jest-m3/test-support";

/** The session's result and turns, and how to stop what it started. */
export interface CodexQuotes {
  readonly result: ExecutionResult;
  /** "Call shipping_quote for weight_kg 2 in zone local.": one call. */
  readonly first: TurnResult;
  /** "compare local and international for 1 kg": two calls in parallel. */
  readonly second: TurnResult;
  close(): Promise<void>;
}

/**
 * A session of Codex (gpt-5.5 on `model`) on the shipping server with only shipping_quote
 * allowed, 60 s a turn: not opened yet.
 */
export function codexShippingSession(kit: MCPTestKit, model: ScriptedModel) {
  const [agent] = kit.agents([{ harness: "codex", models: ["gpt-5.5"], provider: model.provider }]);
  return agent!.session({ server: shipping, tools: ["shipping:shipping_quote"], timeout: 60_000 });
}

/** Runs the two turns on Codex and returns what they gave. */
export async function codexQuotes(): Promise<CodexQuotes> {
  const model = await startScriptedModel({
    rules: [
      seedRule(),
      {
        name: "two quotes",
        when: { user: "compare" },
        steps: [
          {
            parallel: [
              { call: "shipping:shipping_quote", args: { weight_kg: 1, zone: "local" } },
              { call: "shipping:shipping_quote", args: { weight_kg: 1, zone: "international" } },
            ],
          },
          { reply: "Local {{results.0.amount}}, international {{results.1.amount}}." },
        ],
      },
    ],
  });
  const kit = new MCPTestKit({ env: {}, harnesses: [codexHarness] });
  const close = async (): Promise<void> => {
    await kit.close();
    await model.close();
  };
  try {
    const session = codexShippingSession(kit, model);
    await session.open();
    const first = await session.send("Call shipping_quote for weight_kg 2 in zone local.");
    const second = await session.send("compare local and international for 1 kg");
    await session.close();
    return { result: session.result, first, second, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Runs {@link codexQuotes} once for the describe block it is called in (closed after it)
 * and returns its result and turns, readable inside the block's tests.
 */
export function useCodexQuotes(): Omit<CodexQuotes, "close"> {
  let run: CodexQuotes | undefined;
  beforeAll(async () => {
    run = await codexQuotes();
  });
  afterAll(() => run?.close());
  const current = (): CodexQuotes => {
    if (!run) throw new Error("useCodexQuotes: the session runs in beforeAll");
    return run;
  };
  return {
    get result() {
      return current().result;
    },
    get first() {
      return current().first;
    },
    get second() {
      return current().second;
    },
  };
}
