/**
 * Readiness per capability, against the real binary and small stand-ins for broken ones:
 * each way of not being ready says why, and a session refuses to start on it.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HarnessNotReady, MCPTestKit } from "@jest-m3/core";
import claudeCodeHarness, {
  findHostLogin,
  InvalidClaudeCodeOptions,
  resolveClaudeExecutable,
  TESTED_CLAUDE_CODE_VERSION,
} from "@jest-m3/harness-claude-code";
import { claudeSelection, shippingServer } from "./support/claude";
import {
  expectEveryCapabilityReady,
  fakeAgentBinary,
  readinessContext,
} from "@jest-m3/test-support";

jest.setTimeout(30_000);

const provider = {
  name: "scripted",
  baseUrl: "http://127.0.0.1:9",
  wireApi: "anthropic-messages" as const,
};
let dir: string;

const context = readinessContext;

/** A stand-in `claude` that prints `versionOutput` for --version and runs the real one otherwise. */
function fakeClaude(name: string, versionOutput: string): string {
  const real = resolveClaudeExecutable({}, {});
  if (!real.found) throw new Error(real.reason);
  return fakeAgentBinary(dir, name, real.path, versionOutput);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "m3-claude-readiness-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Claude Code readiness", () => {
  test("the installed binary with a provider: every capability ready", async () => {
    const readiness = await claudeCodeHarness.readiness(context(claudeSelection(provider)));
    expectEveryCapabilityReady(readiness, {
      name: "claude-code",
      version: TESTED_CLAUDE_CODE_VERSION,
      executable: /claude(\.exe)?$/,
    });
  });

  test("a missing executable: unavailable, naming the path (selection and M3_CLAUDE_CODE_EXECUTABLE)", async () => {
    const missing = join(dir, "no-such-claude");
    const readiness = await claudeCodeHarness.readiness(
      context(claudeSelection(provider, { executable: missing })),
    );
    expect(readiness.ready).toBe(false);
    expect(readiness.harness).toEqual({ name: "claude-code", version: null, executable: null });
    expect(readiness.capabilities.executable).toEqual({
      status: "unavailable",
      reason: `The selection's executable "${missing}" does not exist.`,
    });
    expect(readiness.capabilities.multiTurn.reason).toContain(missing);
    const configured = await claudeCodeHarness.readiness(
      context(claudeSelection(provider), { M3_CLAUDE_CODE_EXECUTABLE: missing }),
    );
    expect(configured.capabilities.executable?.reason).toBe(
      `M3_CLAUDE_CODE_EXECUTABLE "${missing}" does not exist.`,
    );
  });

  test("an unparsable version is unavailable; older is unavailable; newer is degraded but ready", async () => {
    const garbage = await claudeCodeHarness.readiness(
      context(
        claudeSelection(provider, {
          executable: fakeClaude("claude-garbage", "Claude Code (dev)"),
        }),
      ),
    );
    expect(garbage.capabilities.version).toEqual({
      status: "unavailable",
      reason: expect.stringContaining('printed "Claude Code (dev)", which holds no version number'),
    });
    const older = await claudeCodeHarness.readiness(
      context(
        claudeSelection(provider, {
          executable: fakeClaude("claude-old", "2.1.197 (Claude Code)"),
        }),
      ),
    );
    expect(older.ready).toBe(false);
    expect(older.harness.version).toBe("2.1.197");
    expect(older.capabilities.version).toEqual({
      status: "unavailable",
      reason: expect.stringContaining(`older than ${TESTED_CLAUDE_CODE_VERSION}`),
    });
    const newer = await claudeCodeHarness.readiness(
      context(
        claudeSelection(provider, { executable: fakeClaude("claude-new", "2.2.0 (Claude Code)") }),
      ),
    );
    expect(newer.ready).toBe(true);
    expect(newer.capabilities.version?.status).toBe("degraded");
    expect(newer.capabilities.cli?.status).toBe("ready"); // the real --help answered
    expect(newer.capabilities.multiTurn.status).toBe("degraded");
  });

  test("credentials: no provider, key or login; an unmapped provider key; a key under a name Claude Code does not read; the wrong dialect", async () => {
    const empty = join(dir, "empty-config");
    mkdirSync(empty);
    const none = await claudeCodeHarness.readiness(
      context(claudeSelection(undefined), { M3_CLAUDE_CONFIG_DIR: empty }),
    );
    expect(none.ready).toBe(false);
    expect(none.capabilities.credentials).toEqual({
      status: "unavailable",
      reason: expect.stringContaining(`no file at ${join(empty, ".credentials.json")}`),
    });
    expect(none.capabilities.toolPolicy.status).toBe("ready");

    const withKey = await claudeCodeHarness.readiness(
      context(claudeSelection(undefined, { credentialEnv: { ANTHROPIC_API_KEY: "MY_KEY" } }), {}, [
        "ANTHROPIC_API_KEY",
      ]),
    );
    expect(withKey.capabilities.credentials).toEqual({ status: "ready" });
    const otherName = await claudeCodeHarness.readiness(
      context(claudeSelection(undefined, { credentialEnv: { MY_KEY: "MY_KEY" } }), {}, ["MY_KEY"]),
    );
    expect(otherName.capabilities.credentials.reason).toContain('ANTHROPIC_API_KEY: "MY_KEY"');

    const unmapped = await claudeCodeHarness.readiness(
      context(claudeSelection({ ...provider, envKey: "PROXY_KEY" })),
    );
    expect(unmapped.capabilities.credentials.reason).toContain("PROXY_KEY");

    const wrong = await claudeCodeHarness.readiness(
      context(claudeSelection({ ...provider, wireApi: "responses" })),
    );
    expect(wrong.capabilities.credentials).toEqual({
      status: "unavailable",
      reason: expect.stringContaining(
        "speaks responses; Claude Code speaks only anthropic-messages",
      ),
    });
  });

  test("the host login: a regular file is usable, a symbolic link is refused", async () => {
    const config = join(dir, "login-config");
    mkdirSync(config);
    writeFileSync(join(config, ".credentials.json"), '{"claudeAiOauth":{}}', { mode: 0o600 });
    expect(findHostLogin({ M3_CLAUDE_CONFIG_DIR: config })).toEqual({
      usable: true,
      credentialsFile: join(config, ".credentials.json"),
      accountFile: undefined,
    });
    const linked = join(dir, "linked-config");
    mkdirSync(linked);
    symlinkSync(join(config, ".credentials.json"), join(linked, ".credentials.json"));
    const refused = await claudeCodeHarness.readiness(
      context(claudeSelection(undefined), { M3_CLAUDE_CONFIG_DIR: linked }),
    );
    expect(refused.capabilities.credentials.reason).toContain("symbolic link");
  });

  test("malformed options are a usage error, naming the option", async () => {
    await expect(
      claudeCodeHarness.readiness(
        context(claudeSelection(provider, { options: { builtinTools: "Bash" } })),
      ),
    ).rejects.toThrow(/Claude Code harness option "builtinTools"/);
    await expect(
      claudeCodeHarness.readiness(context(claudeSelection(provider, { options: { tools: [] } }))),
    ).rejects.toBeInstanceOf(InvalidClaudeCodeOptions);
  });

  test("a session on a harness that is not ready is refused with HarnessNotReady, before anything starts", async () => {
    const kit = new MCPTestKit({ env: {}, harnesses: [claudeCodeHarness] });
    try {
      const missing = join(dir, "still-no-claude");
      const [agent] = kit.agents([
        { harness: "claude-code", models: ["scripted-model"], executable: missing, provider },
      ]);
      const opening = agent!.session({ server: shippingServer(join(dir, "calls.jsonl")) }).open();
      await expect(opening).rejects.toBeInstanceOf(HarnessNotReady);
      await expect(opening).rejects.toThrow(missing);
      expect(kit.processes).toEqual([]);
    } finally {
      await kit.close();
    }
  });
});
