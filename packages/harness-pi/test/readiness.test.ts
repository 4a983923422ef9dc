/**
 * Pi's readiness, against the real Pi binary pinned at the root: ready with the pinned
 * version, naming the Node it found and the Node Pi needs; and a clear, unavailable reason
 * (before anything starts) for a missing executable, a Node too old for Pi, a provider in a
 * dialect Pi is not given, and malformed options.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ReadinessContext } from "@jest-m3/core/harness";
import piHarness, { InvalidPiOptions, TESTED_PI_VERSION } from "@jest-m3/harness-pi";
import { piSelection } from "./support/pi";

jest.setTimeout(60_000);

const provider = {
  name: "scripted",
  baseUrl: "http://127.0.0.1:9/v1",
  wireApi: "chat-completions" as const,
};

function context(extra: Partial<ReadinessContext["selection"]> = {}): ReadinessContext {
  return { selection: piSelection(provider, extra), config: {}, credentialNames: [] };
}

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "m3-pi-readiness-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test("the pinned Pi is ready: version, the Node it runs on, its flags and get_state in RPC mode", async () => {
  const readiness = await piHarness.readiness(context());
  expect(readiness.ready).toBe(true);
  expect(readiness.harness).toEqual({
    name: "pi",
    version: TESTED_PI_VERSION,
    executable: expect.stringMatching(/pi-coding-agent[\\/]dist[\\/]bundle[\\/]cli\.js$/),
  });
  for (const name of [
    "executable",
    "version",
    "rpc",
    "multiTurn",
    "toolPolicy",
    "wireEvidence",
    "credentials",
  ]) {
    expect([name, readiness.capabilities[name]?.status]).toEqual([name, "ready"]);
  }
  // Readiness says which Node it found and what Pi needs.
  expect(readiness.capabilities.node).toEqual({
    status: "ready",
    reason: expect.stringMatching(/^Node 2\d\.\d+\.\d+ \(.+\); Pi needs Node ≥ 22\.19\.0$/),
  });
  // A second readiness asks no new probe: the answer is the same, and quick.
  const started = Date.now();
  expect((await piHarness.readiness(context())).ready).toBe(true);
  expect(Date.now() - started).toBeLessThan(1000);
});

test("a missing executable is unavailable, with the path and what to do", async () => {
  const readiness = await piHarness.readiness(context({ executable: join(scratch, "no-such-pi") }));
  expect(readiness.ready).toBe(false);
  expect(readiness.harness.executable).toBeNull();
  expect(readiness.capabilities.executable).toEqual({
    status: "unavailable",
    reason: `The selection's executable ${JSON.stringify(join(scratch, "no-such-pi"))} does not exist.`,
  });
  expect(readiness.capabilities.multiTurn?.reason).toContain("does not exist");
  expect(readiness.capabilities.rpc?.status).toBe("unavailable");
});

test("a Node older than Pi needs is unavailable, naming both versions and the fix", async () => {
  const old = join(scratch, "node20");
  writeFileSync(old, "#!/bin/sh\necho v20.11.0\n");
  chmodSync(old, 0o755);
  const readiness = await piHarness.readiness(context({ options: { node: old } }));
  expect(readiness.ready).toBe(false);
  expect(readiness.capabilities.node?.status).toBe("unavailable");
  expect(readiness.capabilities.node?.reason).toContain(
    `the Pi option node names Node 20.11.0 (${old}), but Pi needs Node ≥ 22.19.0`,
  );
  expect(readiness.capabilities.node?.reason).toContain("M3_PI_NODE");
});

test("a provider in a dialect Pi is not given, and malformed options, are refused before any start", async () => {
  const gemini = await piHarness.readiness({
    ...context(),
    selection: piSelection({ name: "g", baseUrl: "http://127.0.0.1:9", wireApi: "gemini" }),
  });
  expect(gemini.capabilities.credentials).toEqual({
    status: "unavailable",
    reason:
      'provider "g" speaks gemini; this adapter gives Pi responses, chat-completions, anthropic-messages',
  });
  const noProvider = await piHarness.readiness({ ...context(), selection: piSelection(undefined) });
  expect(noProvider.capabilities.credentials?.reason).toContain("no provider and no credentials");

  const refused = piHarness.readiness(context({ options: { builtinTools: ["rm"] } }));
  await expect(refused).rejects.toBeInstanceOf(InvalidPiOptions);
  await expect(refused).rejects.toMatchObject({
    code: "M3_INVALID_SELECTION",
    option: "builtinTools",
    message: expect.stringContaining("read, bash, powershell, edit, write, grep, find, ls"),
  });
  await expect(piHarness.readiness(context({ options: { startupTimeout: 5 } }))).rejects.toThrow(
    'Pi harness option "startupTimeout" is unknown; the options are builtinTools, startupTimeoutMs, toolTimeoutMs, maxRetries, node, warm.',
  );
});
