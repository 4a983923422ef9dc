/**
 * Core's conformance suite on one agent, as every harness package runs it: a scripted model
 * with the suite's three prompts (call the tool, hang, fail), a provider that reads the
 * model's address only when a check runs (the model listens by then), and the shipping
 * server. Call {@link conformanceModel} at a test file's top level: it starts the model in
 * `beforeAll` and closes it in `afterAll`.
 */
import type {
  ConformanceOptions,
  HarnessDefinition,
  ModelProvider,
  ProviderDialect,
} from "@jest-m3/core/harness";
import { startScriptedModel, type Rule, type ScriptedModel } from "@jest-m3/scripted-model";
import { SHIPPING_SCRIPT } from "./paths";

/** How the conformance model answers. */
export interface ConformanceModelOptions {
  /** The dialect the agent speaks to the model. */
  readonly dialect: ProviderDialect;
  /**
   * How many times each fault (hang, fail) is played: an agent that retries a request, or a
   * check retried, plays it again. Default 1.
   */
  readonly faultRepeats?: number;
  /** The provider failure of the "failing provider" check. Default HTTP 500 "scripted outage". */
  readonly fail?: { readonly http: number; readonly message: string };
  /** The answer after the tool call. Default "The quote is {{result.amount}} {{result.currency}}." */
  readonly reply?: string;
  /** More rules, after the suite's own (for a file's own tests). */
  readonly rules?: readonly Rule[];
}

/** A conformance model: its lazy provider and the running model (once `beforeAll` ran). */
export interface ConformanceModel {
  /** The model's provider in the chosen dialect, read when a check runs. */
  readonly provider: ModelProvider;
  /** The running model; throws before `beforeAll` has started it. */
  model(): ScriptedModel;
}

/** The suite's prompts, as the conformance model's rules expect them. */
export const CONFORMANCE_PROMPTS = {
  callTool: "conformance: call the tool",
  hang: "conformance: hang",
  fail: "conformance: fail",
} as const;

/** Starts (in `beforeAll`) and closes (in `afterAll`) a scripted model for the suite. */
export function conformanceModel(options: ConformanceModelOptions): ConformanceModel {
  const repeats = options.faultRepeats ?? 1;
  const repeat = <T>(step: T): T[] => Array.from({ length: repeats }, () => step);
  const fail = options.fail ?? { http: 500, message: "scripted outage" };
  let running: ScriptedModel | undefined;
  beforeAll(async () => {
    running = await startScriptedModel({
      rules: [
        {
          name: "call",
          when: { user: CONFORMANCE_PROMPTS.callTool },
          steps: [
            { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
            { reply: options.reply ?? "The quote is {{result.amount}} {{result.currency}}." },
          ],
        },
        { name: "hang", when: { user: CONFORMANCE_PROMPTS.hang }, steps: repeat({ hang: true }) },
        { name: "fail", when: { user: CONFORMANCE_PROMPTS.fail }, steps: repeat(fail) },
        ...(options.rules ?? []),
      ],
    });
  });
  afterAll(async () => {
    await running?.close();
  });
  const model = (): ScriptedModel => {
    if (running === undefined) throw new Error("The conformance model starts in beforeAll.");
    return running;
  };
  const current = (): ModelProvider => model().providerFor(options.dialect);
  const provider: ModelProvider = {
    get name() {
      return current().name;
    },
    get baseUrl() {
      return current().baseUrl;
    },
    get wireApi() {
      return current().wireApi;
    },
  };
  return { provider, model };
}

/** The suite's options for `harness` on the conformance model, with the shipping server. */
export function conformanceOptions(
  harness: HarnessDefinition,
  model: ConformanceModel,
  options: { readonly models: readonly string[]; readonly turnTimeoutMs: number },
): ConformanceOptions {
  return {
    harness,
    selection: { models: [...options.models], provider: model.provider },
    server: { name: "shipping", command: process.execPath, args: [SHIPPING_SCRIPT] },
    tool: "shipping_quote",
    prompts: CONFORMANCE_PROMPTS,
    turnTimeoutMs: options.turnTimeoutMs,
  };
}
