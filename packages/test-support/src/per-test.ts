/**
 * The set-up most adapter tests share: a fresh kit for each test, the captures and process
 * ids the test adds, and after each test the kit closed with nothing left running (checked
 * from `ps`, not from the kit's bookkeeping); optionally a scripted model started for the
 * file or for each test.
 */
import { MCPTestKit, type MCPTestKitOptions, type WireCapture } from "@jest-m3/core";
import {
  startScriptedModel,
  type Rule,
  type Script,
  type ScriptedModel,
  type ScriptedModelOptions,
} from "@jest-m3/scripted-model";
import { closeAndExpectNoProcessLeft, knownPids } from "./processes";

/** What {@link perTestKit} keeps for the running test. */
export interface PerTest {
  /** This test's kit (a new one for each test). */
  readonly kit: MCPTestKit;
  /** The scripted model; throws when {@link PerTestOptions.script} was not given. */
  readonly model: ScriptedModel;
  /** Captures this test made by hand (their relays and servers must be gone after it). */
  readonly captures: WireCapture[];
  /** More process ids that must be gone after the test (an agent's pid). */
  readonly pids: number[];
}

/** How {@link perTestKit} sets a test up. */
export interface PerTestOptions {
  /** The scripted model's script; without one no model is started. */
  readonly script?: Script;
  /** Start the model for each test (`"each"`) or once for the file or describe block (default). */
  readonly model?: "each" | "all";
  /** The kit's options; default `{ env: {}, killGraceMs: 500 }`. */
  readonly kit?: MCPTestKitOptions;
}

/**
 * Registers the hooks (call it at a file's or a describe block's top level) and returns the
 * running test's kit, model, captures and pids.
 *
 * @example
 * ```ts
 * const t = perTestKit({ script: { rules: [seedRule()] } });
 * test("…", async () => {
 *   const { launch, capture } = await testLaunch(t.kit, selection, servers);
 *   t.captures.push(capture);
 * });
 * ```
 */
export function perTestKit(options: PerTestOptions = {}): PerTest {
  let model: ScriptedModel | undefined;
  let kit: MCPTestKit | undefined;
  let captures: WireCapture[] = [];
  let pids: number[] = [];
  const start = async (): Promise<void> => {
    if (options.script) model = await startScriptedModel(options.script);
  };
  const stop = async (): Promise<void> => {
    await model?.close();
    model = undefined;
  };
  if (options.model === "each") {
    beforeEach(start);
  } else {
    beforeAll(start);
    afterAll(stop);
  }
  beforeEach(() => {
    kit = new MCPTestKit(options.kit ?? { env: {}, killGraceMs: 500 });
    captures = [];
    pids = [];
  });
  afterEach(async () => {
    try {
      // Nothing added by hand: the kit's processes, their process groups gone too.
      if (kit && pids.length === 0 && captures.length === 0) await closeAndExpectNoProcessLeft(kit);
      else if (kit) await closeAndExpectNoProcessLeft(kit, [...pids, ...knownPids(kit, captures)]);
    } finally {
      if (options.model === "each") await stop();
    }
  });
  return {
    get kit() {
      if (!kit) throw new Error("perTestKit: the kit exists only inside a test");
      return kit;
    },
    get model() {
      if (!model) throw new Error("perTestKit: no scripted model (give a script)");
      return model;
    },
    get captures() {
      return captures;
    },
    get pids() {
      return pids;
    },
  };
}

/** How {@link modelForFile} starts and stops its model. */
export interface ModelForFileOptions {
  /** The model server's options (a port, a provider name). */
  readonly server?: ScriptedModelOptions;
  /** Runs after the file's tests, before the model closes (stopping the warm agents left). */
  readonly after?: () => Promise<void>;
}

/**
 * Registers the hooks (call it at a file's or a describe block's top level) of a scripted
 * model answering `script`, started once before the block's tests and closed after them, and
 * returns it: the model itself, read inside a test or a hook (outside one it throws).
 *
 * @example
 * ```ts
 * const model = modelForFile({ rules: [TIDY_RULE] });
 * test("…", async () => {
 *   const [agent] = kit.agents([{ harness: "pi", models: ["m"], provider: model.provider }]);
 * });
 * ```
 */
export function modelForFile(script: Script, options: ModelForFileOptions = {}): ScriptedModel {
  let started: ScriptedModel | undefined;
  beforeAll(async () => {
    started = await startScriptedModel(script, options.server);
  });
  afterAll(async () => {
    await options.after?.();
    await started?.close();
  });
  return new Proxy({} as ScriptedModel, {
    get(_target, property) {
      if (!started) throw new Error("modelForFile: the model exists only inside a test or hook");
      const value: unknown = Reflect.get(started, property, started);
      return typeof value === "function" ? value.bind(started) : value;
    },
  });
}

/** The scripted model's rule for a prompt saying "say hello": the reply "Hello.", no tool call. */
export const HELLO_RULE: Rule = {
  name: "hello",
  when: { user: "say hello" },
  steps: [{ reply: "Hello." }],
};

/**
 * Registers the hooks (at a file's top level) of a scripted model that answers
 * {@link HELLO_RULE}, started once for the file; after the file, `after` runs (stopping the
 * warm agents the file left) before the model closes. Read `model` inside a test.
 */
export function helloModel(after?: () => Promise<void>): { readonly model: ScriptedModel } {
  const model = modelForFile({ rules: [HELLO_RULE] }, after ? { after } : {});
  return {
    get model() {
      return model;
    },
  };
}
