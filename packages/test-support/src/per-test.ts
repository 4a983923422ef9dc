/**
 * The set-up most adapter tests share: a fresh kit for each test, the captures and process
 * ids the test adds, and after each test the kit closed with nothing left running (checked
 * from `ps`, not from the kit's bookkeeping); optionally a scripted model started for the
 * file or for each test.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPTestKit, type MCPTestKitOptions, type WireCapture } from "@jest-m3/core";
import type { HarnessDefinition } from "@jest-m3/core/harness";
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

/**
 * {@link perTestKit} for an adapter's tests: for each test a scripted model playing `script`
 * and a kit with `harness` (`killGraceMs: 500`), closed after it with nothing left running.
 */
export function perTestKitOn(harness: HarnessDefinition, script: Script): PerTest {
  return perTestKit({
    script,
    model: "each",
    kit: { env: {}, killGraceMs: 500, harnesses: [harness] },
  });
}

/** Registers `setUp` and `tearDown` around each test (`each`) or around the block's tests. */
function around(
  each: boolean | undefined,
  setUp: () => void | Promise<void>,
  tearDown: () => void | Promise<void>,
): void {
  if (each) {
    beforeEach(setUp);
    afterEach(tearDown);
  } else {
    beforeAll(setUp);
    afterAll(tearDown);
  }
}

/** How {@link useScriptedModel} starts and stops its model. */
export interface UseScriptedModelOptions {
  /** A new model for each test (`beforeEach`/`afterEach`); by default one for the block. */
  readonly each?: boolean;
  /** The model server's options (a port, a provider name). */
  readonly server?: ScriptedModelOptions;
  /** Runs after the tests (each test with `each`), before the model closes (stopping warm agents). */
  readonly after?: () => Promise<void>;
}

/**
 * Registers the hooks (call it at a file's or a describe block's top level) of a scripted
 * model answering `script`, started before the block's tests (or before each test) and closed
 * after them, and returns it: the model itself, read inside a test or a hook (outside one it
 * throws).
 *
 * @example
 * ```ts
 * const model = useScriptedModel({ rules: [TIDY_RULE] });
 * test("…", async () => {
 *   const [agent] = kit.agents([{ harness: "pi", models: ["m"], provider: model.provider }]);
 * });
 * ```
 */
export function useScriptedModel(
  script: Script,
  options: UseScriptedModelOptions = {},
): ScriptedModel {
  let started: ScriptedModel | undefined;
  const start = async (): Promise<void> => {
    started = await startScriptedModel(script, options.server);
  };
  const stop = async (): Promise<void> => {
    try {
      await options.after?.();
    } finally {
      await started?.close();
      started = undefined;
    }
  };
  around(options.each, start, stop);
  return new Proxy({} as ScriptedModel, {
    get(_target, property) {
      if (!started) throw new Error("useScriptedModel: the model exists only in a test or hook");
      const value: unknown = Reflect.get(started, property, started);
      return typeof value === "function" ? value.bind(started) : value;
    },
  });
}

/**
 * Registers the hooks of a temporary folder named `prefix…` (made before the block's tests, or
 * before each test with `each`; removed after) and returns the path of `name` in it (the folder
 * itself without a name). Call it inside a test or a hook.
 *
 * @example
 * ```ts
 * const logs = useTempFolder("m3-pi-faults-", { each: true });
 * test("…", () => { const log = logs("ledger.jsonl"); });
 * ```
 */
export function useTempFolder(
  prefix: string,
  options: { readonly each?: boolean } = {},
): (name?: string) => string {
  let folder: string | undefined;
  const make = (): void => {
    folder = mkdtempSync(join(tmpdir(), prefix));
  };
  const remove = (): void => {
    if (folder) rmSync(folder, { recursive: true, force: true });
    folder = undefined;
  };
  around(options.each, make, remove);
  return (name) => {
    if (!folder) throw new Error("useTempFolder: the folder exists only in a test or hook");
    return name === undefined ? folder : join(folder, name);
  };
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
  const model = useScriptedModel({ rules: [HELLO_RULE] }, after ? { after } : {});
  return {
    get model() {
      return model;
    },
  };
}
