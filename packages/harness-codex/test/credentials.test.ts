/**
 * Credentials reach Codex through its environment only: a provider's key is named in the
 * configuration (`env_key`), sent to the model, and its value is written nowhere.
 */
import { join } from "node:path";
import { MCPTestKit, type WireCapture } from "@jest-m3/core";
import { type HarnessLaunch } from "@jest-m3/core/harness";
import codexHarness from "@jest-m3/harness-codex";
import type { CodexSession } from "../src/session";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { filesContaining } from "@jest-m3/test-support";
import {
  closeAndExpectNoProcessLeft,
  codexLaunch,
  codexSelection,
  knownPids,
  shippingServer,
  turnRequest,
} from "./support/codex";

const SECRET = "m3-test-secret-4c1d9e";

describe("Codex credentials", () => {
  let model: ScriptedModel;
  let kit: MCPTestKit;
  const captures: WireCapture[] = [];
  const pids: number[] = [];

  beforeEach(async () => {
    model = await startScriptedModel({ rules: [{ name: "hello", steps: [{ reply: "Hello." }] }] });
    kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
  });
  afterEach(async () => {
    await closeAndExpectNoProcessLeft(kit, [...pids, ...knownPids(kit, captures)]);
    await model.close();
  });

  test("a provider's key goes to the model from the environment and is never written to disk or the trace", async () => {
    const provider = { ...model.provider, envKey: "PROXY_KEY" };
    const selection = codexSelection(provider, { credentialEnv: { PROXY_KEY: "PARENT_KEY" } });
    const built = await codexLaunch(kit, selection, [
      shippingServer(join(await kit.tempDir("m3-log-"), "calls.jsonl")),
    ]);
    captures.push(built.capture);
    const dirs: string[] = [];
    const launch: HarnessLaunch = {
      ...built.launch,
      env: { ...built.launch.env, PROXY_KEY: SECRET },
      tempDir: async (prefix) => {
        const dir = await kit.tempDir(prefix);
        dirs.push(dir);
        return dir;
      },
    };
    expect(launch.credentials).toEqual(["PROXY_KEY"]);
    const session = (await codexHarness.open(launch)) as CodexSession;
    pids.push(session.pid as number);
    const turn = await session.send(turnRequest("Hi.", "turn-1").request);
    expect([turn.outcome, turn.response?.text]).toEqual(["completed", "Hello."]);

    // The model got a bearer token (the journal redacts it), so the key was used...
    expect(model.journal.entries[0]?.headers.authorization).toBe("Bearer <redacted>");
    await session.close();
    // ...and its value is in no file of the Codex home, the events or the trace.
    expect(dirs).toHaveLength(1);
    expect(filesContaining(dirs[0]!, SECRET)).toEqual([]);
    expect(JSON.stringify([turn.events, built.events, built.capture.trace])).not.toContain(SECRET);
  });
});
