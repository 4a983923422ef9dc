/**
 * Readiness per capability, on the real binaries and on small stand-ins for broken ones:
 * each way of not being ready says why, and a session refuses to start on it. Option
 * mistakes are caught before anything is spawned.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HarnessNotReady, MCPTestKit } from "jest-m3";
import type { ReadinessContext, SelectionSpec } from "@jest-m3/core/harness";
import {
  acpHarness,
  geminiHarness,
  InvalidAcpOptions,
  opencodeHarness,
} from "@jest-m3/harness-acp";
import { selection, shippingServer } from "./support/acp";
import { childrenOf, wrappedGemini } from "@jest-m3/test-support";

jest.setTimeout(120_000);

const FAKE_AGENT = join(__dirname, "fixtures/fake-agent.mjs");
const gemini = { name: "scripted", baseUrl: "http://127.0.0.1:9", wireApi: "gemini" as const };
const chat = {
  name: "scripted",
  baseUrl: "http://127.0.0.1:9/v1",
  wireApi: "chat-completions" as const,
};
let dir: string;

function context(spec: SelectionSpec, credentialNames: string[] = []): ReadinessContext {
  return { selection: spec, config: {}, credentialNames };
}

/** A stand-in `gemini` that prints `version` for --version and runs the real one otherwise. */
function fakeGemini(name: string, version: string): string {
  return wrappedGemini(dir, name, `if [ "$1" = "--version" ]; then echo "${version}"; exit 0; fi`);
}

function fakeAgent(mode: string, extra: Record<string, unknown> = {}): SelectionSpec {
  return selection("acp", undefined, {
    model: "fake-a",
    options: { command: process.execPath, args: [FAKE_AGENT, "--mode", mode], ...extra },
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "m3-acp-readiness-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the real agents", () => {
  test.each([
    ["gemini", geminiHarness, gemini, "0.61.0"],
    ["opencode", opencodeHarness, chat, "1.18.33"],
  ] as const)(
    "%s: every capability ready, with its version; elicitation unsupported, saying why",
    async (name, harness, provider, version) => {
      const readiness = await harness.readiness(context(selection(name, provider)));
      expect(readiness.harness).toEqual({ name, version, executable: expect.any(String) });
      expect(readiness.ready).toBe(true);
      const { elicitation, ...rest } = readiness.capabilities;
      for (const [capability, value] of Object.entries(rest)) {
        expect([capability, value]).toEqual([capability, { status: "ready" }]);
      }
      expect(elicitation).toEqual({
        status: "unsupported",
        reason: expect.stringMatching(/MCP client declares only the roots capability/),
      });
    },
  );

  test("gemini without provider or key: credentials unavailable, saying how to fix it", async () => {
    const readiness = await geminiHarness.readiness(context(selection("gemini", undefined)));
    expect(readiness.capabilities.credentials).toEqual({
      status: "unavailable",
      reason: expect.stringMatching(/no provider and no GEMINI_API_KEY.*credentialEnv/),
    });
    expect(readiness.capabilities.multiTurn.status).toBe("unavailable");
    const ready = await geminiHarness.readiness(
      context(selection("gemini", undefined), ["GEMINI_API_KEY"]),
    );
    expect(ready.capabilities.credentials).toEqual({ status: "ready" });
  });

  test("a provider whose key is not mapped, and opencode's model without a provider", async () => {
    const keyed = await opencodeHarness.readiness(
      context(selection("opencode", { ...chat, envKey: "SCRIPTED_KEY" })),
    );
    expect(keyed.capabilities.credentials.reason).toMatch(
      /reads its key from SCRIPTED_KEY, which is not mapped/,
    );
    const bare = await opencodeHarness.readiness(context(selection("opencode", undefined)));
    expect(bare.capabilities.credentials.reason).toMatch(/"<provider>\/<model>"/);
  });

  test("a session refuses to start when the credentials are not there: HarnessNotReady", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const [agent] = kit.agents([{ harness: "gemini", models: ["scripted-1"] }]);
    const session = agent!.session({ server: shippingServer(join(dir, "calls.jsonl")) });
    const error: unknown = await session.open().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HarnessNotReady);
    expect((error as HarnessNotReady).message).toMatch(/credentials: unavailable/);
  });
});

describe("versions", () => {
  test("older than the tested range: unavailable, not started", async () => {
    const readiness = await geminiHarness.readiness(
      context(selection("gemini", gemini, { executable: fakeGemini("old-gemini", "0.50.2") })),
    );
    expect(readiness.capabilities.version).toEqual({
      status: "unavailable",
      reason: expect.stringMatching(
        /Gemini CLI 0\.50\.2 is older than 0\.61\.0.*@google\/gemini-cli@0\.61\.0/,
      ),
    });
    expect(readiness.capabilities.acp?.reason).toBe("not checked: the version check failed");
    // The agent asked meanwhile was withdrawn: nothing of the probe is left running.
    expect(childrenOf(process.pid)).toEqual([]);
    expect(readiness.ready).toBe(false);
  });

  test("newer than the tested range: degraded, still started and asked initialize", async () => {
    const readiness = await geminiHarness.readiness(
      context(selection("gemini", gemini, { executable: fakeGemini("new-gemini", "0.70.0") })),
    );
    expect(readiness.capabilities.version).toEqual({
      status: "degraded",
      reason: expect.stringMatching(/0\.70\.0 is newer than the tested range/),
    });
    expect(readiness.capabilities.acp).toEqual({ status: "ready" });
    expect(readiness.ready).toBe(true);
  });

  test("no executable where the selection says: unavailable, naming the path", async () => {
    const readiness = await opencodeHarness.readiness(
      context(selection("opencode", chat, { executable: join(dir, "missing-opencode") })),
    );
    expect(readiness.capabilities.executable).toEqual({
      status: "unavailable",
      reason: expect.stringContaining('missing-opencode" does not exist'),
    });
    expect(readiness.harness.executable).toBeNull();
  });
});

describe("what initialize says (any ACP agent)", () => {
  test("an agent that answers: ready, with no HTTP MCP support reported as unsupported", async () => {
    const readiness = await acpHarness.readiness(context(fakeAgent("ok")));
    expect(readiness.capabilities.acp).toEqual({ status: "ready" });
    expect(readiness.capabilities.mcpStdio).toEqual({ status: "ready" });
    expect(readiness.capabilities.mcpHttp).toEqual({
      status: "unsupported",
      reason: expect.stringMatching(/does not advertise mcpCapabilities\.http/),
    });
    expect(readiness.capabilities.version?.status).toBe("degraded");
    expect(readiness.capabilities.multiTurn.status).toBe("degraded");
  });

  test("a session with an HTTP server on an agent without HTTP support fails to start, saying so", async () => {
    await using kit = new MCPTestKit({ env: {} });
    const spec = fakeAgent("ok");
    const [agent] = kit.agents([{ harness: "acp", models: ["fake-a"], options: spec.options }]);
    const session = agent!.session({ server: { name: "remote", url: "http://127.0.0.1:9/mcp" } });
    await expect(session.open()).rejects.toThrow(/mcpCapabilities\.http.*HTTP servers: remote/s);
  });

  test.each([
    ["v2", /answered initialize with ACP protocol version 2; this adapter speaks version 1/],
    ["silent", /did not answer initialize within 1000 ms/],
    ["exit-at-start", /exited \(code 2\)[\s\S]*cannot load its configuration/],
  ])("an agent in mode %s: acp unavailable, with the reason", async (mode, reason) => {
    const readiness = await acpHarness.readiness(
      context(fakeAgent(mode, { startupTimeoutMs: 1000 })),
    );
    expect(readiness.capabilities.acp).toEqual({
      status: "unavailable",
      reason: expect.stringMatching(reason),
    });
    expect(readiness.capabilities.multiTurn.status).toBe("unavailable");
    expect(readiness.ready).toBe(false);
  });

  test("a provider the options never hand to the agent is unavailable, not silently ignored", async () => {
    const readiness = await acpHarness.readiness(context({ ...fakeAgent("ok"), provider: chat }));
    expect(readiness.capabilities.credentials.reason).toMatch(
      /neither options\.args nor options\.env mention \{\{provider\.baseUrl\}\}/,
    );
    const wrongDialect = await acpHarness.readiness(
      context({
        ...fakeAgent("ok", { env: { BASE: "{{provider.baseUrl}}" }, dialects: ["gemini"] }),
        provider: chat,
      }),
    );
    expect(wrongDialect.capabilities.credentials.reason).toMatch(
      /speaks chat-completions, but options\.dialects says the agent speaks gemini/,
    );
  });
});

describe("options, checked before anything starts", () => {
  test.each([
    [{}, /option "command" must be the agent's executable/],
    [{ command: "x", colour: "red" }, /option "colour" is unknown; the options are/],
    [
      { command: "x", args: ["--model", "{{modle}}"] },
      /args\[1\]" uses the unknown placeholder \{\{modle\}\}/,
    ],
    [
      { command: "x", env: { MY_API_KEY: "sk-1" } },
      /env\.MY_API_KEY" looks like a credential.*credentialEnv/,
    ],
    [{ command: "x", env: { HOME: "/" } }, /env\.HOME" is set by the harness.*Leave it out/],
    [{ command: "x", env: { TMPDIR: "/tmp" } }, /env\.TMPDIR" is set by the harness/],
    [{ command: "x", env: { xdg_config_home: "/" } }, /env\.xdg_config_home" is set by/],
    [{ command: "x", stop: "kill" }, /"stop" must be "stdin" or "sigterm"/],
    [{ command: "x", dialects: ["smoke-signals"] }, /"dialects" must be a non-empty array/],
    [{ command: "x", warm: true }, /"warm" is offered for the gemini and opencode harnesses only/],
  ])("acp options %j", async (options, message) => {
    await expect(
      acpHarness.readiness(context(selection("acp", undefined, { options }))),
    ).rejects.toThrow(InvalidAcpOptions);
    await expect(
      acpHarness.readiness(context(selection("acp", undefined, { options }))),
    ).rejects.toThrow(message);
  });

  test("gemini and opencode take only the common options", async () => {
    await expect(
      geminiHarness.readiness(context(selection("gemini", gemini, { options: { command: "x" } }))),
    ).rejects.toThrow(/gemini harness option "command" is unknown/);
    await expect(
      opencodeHarness.readiness(
        context(selection("opencode", chat, { options: { startupTimeoutMs: 5 } })),
      ),
    ).rejects.toThrow(/"startupTimeoutMs" must be a number of milliseconds of at least 1000/);
    await expect(
      geminiHarness.readiness(context(selection("gemini", gemini, { options: { warm: "yes" } }))),
    ).rejects.toThrow(/gemini harness option "warm" must be true or false, got "yes"/);
  });
});
