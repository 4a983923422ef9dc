/**
 * The adapter kit's readiness builders, executable lookup, version rules, start failures
 * and approvals, against real files and real processes (small executables written into a
 * temporary folder that print a version, or fail).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AgentExited,
  AgentTimeout,
  agentChecks,
  cachedVersionProbe,
  probeCache,
  probeOnce,
  unfinishedCall,
  providerCredentials,
  readVersion,
  resolveAgentExecutable,
  runIsolated,
  sessionCapabilities,
  startFailure,
  toolDecision,
  versionCapability,
  worst,
  type FoundExecutable,
} from "@jest-m3/core/adapter-kit";
import { HarnessStartError } from "@jest-m3/core/harness";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "m3-kit-readiness-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An executable script printing `output` for --version (and HOME for `home`). */
function fakeAgent(name: string, output: string, exitCode = 0): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `#!/bin/sh\nif [ "$1" = home ]; then echo "$HOME"; exit 0; fi\necho '${output}'\nexit ${exitCode}\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

const search = {
  agent: "Kit CLI",
  variable: "M3_KIT_CLI_EXECUTABLE",
  packageName: "kit-cli-not-installed",
  binName: "kit-cli-not-on-path",
  installVersion: "1.2.3",
};
const rule = { product: "Kit CLI", tested: "1.2.3", install: "kit-cli@1.2.3" };

test("lookup: an explicit path is used or reported; the installed hook's tries are named", () => {
  const agent = fakeAgent("kit-cli", "kit 1.2.3");
  expect(resolveAgentExecutable(search, agent, {})).toEqual({
    found: true,
    path: agent,
    command: agent,
    prefix: [],
    source: "selection",
  });
  const missing = join(dir, "nope");
  expect(resolveAgentExecutable(search, undefined, { M3_KIT_CLI_EXECUTABLE: missing })).toEqual({
    found: false,
    reason: `M3_KIT_CLI_EXECUTABLE "${missing}" does not exist.`,
  });
  const native = resolveAgentExecutable(
    { ...search, installed: () => ({ path: agent }) },
    undefined,
    {},
    "",
  );
  expect(native).toMatchObject({ found: true, path: agent, source: "package" });
  const none = resolveAgentExecutable(
    { ...search, installed: () => ({ tried: ["/a/kit", "/b/kit"] }) },
    undefined,
    {},
    "",
  );
  expect(none).toEqual({
    found: false,
    reason:
      'No Kit CLI executable found: no selection executable, no M3_KIT_CLI_EXECUTABLE, no installed kit-cli-not-installed binary (looked for /a/kit; /b/kit), and no "kit-cli-not-on-path" on PATH. Install it (npm install --save-dev kit-cli-not-installed@1.2.3) or set M3_KIT_CLI_EXECUTABLE.',
  });
});

test("versions: read in a throw-away home; older is unavailable, newer degraded, equal ready", async () => {
  const found = (path: string): FoundExecutable => ({
    found: true,
    path,
    command: path,
    prefix: [],
    source: "path",
  });
  const home = await runIsolated(found(fakeAgent("homer", "")), ["home"], {
    env: (folder) => ({ HOME: folder, MY_HOME: folder }),
  });
  expect(home.ok && home.output).toMatch(/m3-probe-/);
  const equal = await readVersion(found(fakeAgent("equal", "kit-cli 1.2.3")), 10_000);
  expect(versionCapability(equal, rule)).toEqual({ status: "ready" });
  const older = await readVersion(found(fakeAgent("older", "kit-cli 1.2.2")), 10_000);
  expect(versionCapability(older, rule)).toEqual({
    status: "unavailable",
    reason:
      "Kit CLI 1.2.2 is older than 1.2.3, the version this adapter is tested with; install kit-cli@1.2.3",
  });
  const newer = await readVersion(found(fakeAgent("newer", "kit-cli 1.3.0-beta.1")), 10_000);
  expect(versionCapability(newer, { ...rule, checkedBy: "the protocol test" })).toEqual({
    status: "degraded",
    reason:
      "Kit CLI 1.3.0-beta.1 is newer than 1.2.3, the version this adapter is tested with; it may work (the protocol test tells), but it is untested",
  });
  const garbage = await readVersion(found(fakeAgent("garbage", "dev build")), 10_000);
  expect(garbage).toEqual({
    ok: false,
    reason: expect.stringContaining('printed "dev build", which holds no version number'),
  });
  const failing = await readVersion(found(fakeAgent("failing", "broken", 2)), 10_000);
  expect(failing.ok).toBe(false);
  expect(!failing.ok && failing.reason).toMatch(/failed \(Command failed.*\): broken$/);
});

test("agentChecks: each step runs only when the one before allows it, and says why not", async () => {
  const starts: string[] = [];
  const spec = {
    agent: "Kit CLI",
    version: rule,
    probeVersion: (executable: FoundExecutable) => readVersion(executable, 10_000),
    start: {
      name: "cli",
      probe: async (executable: FoundExecutable) => {
        starts.push(executable.path);
        return { status: "ready" as const };
      },
    },
  };
  const missing = await agentChecks({ ...spec, executable: { found: false, reason: "not here" } });
  expect(missing).toEqual({
    executable: { status: "unavailable", reason: "not here" },
    version: { status: "unavailable", reason: "no Kit CLI executable to ask for its version" },
    start: { status: "unavailable", reason: "no Kit CLI executable to start" },
    versionText: null,
  });
  const old = fakeAgent("old", "1.0.0");
  const refused = await agentChecks({
    ...spec,
    executable: { found: true, path: old, command: old, prefix: [], source: "path" },
  });
  expect(refused.start).toEqual({
    status: "unavailable",
    reason: "not started: the version check failed",
  });
  expect(refused.versionText).toBe("1.0.0");
  const good = fakeAgent("good", "1.2.3");
  const ready = await agentChecks({
    ...spec,
    executable: { found: true, path: good, command: good, prefix: [], source: "path" },
  });
  expect(ready).toMatchObject({
    executable: { status: "ready" },
    version: { status: "ready" },
    start: { status: "ready" },
  });
  expect(starts).toEqual([good]);
});

test("capabilities: worst() keeps each reason once; sessions gate on harness and credentials", () => {
  const down = { status: "unavailable" as const, reason: "no binary" };
  const meh = { status: "degraded" as const, reason: "untested" };
  expect(worst({ status: "ready" }, meh, down, down)).toEqual({
    status: "unavailable",
    reason: "untested; no binary",
  });
  expect(worst({ status: "ready" })).toEqual({ status: "ready" });
  const capabilities = sessionCapabilities(meh, down, { cli: meh });
  expect(capabilities.multiTurn).toEqual({ status: "unavailable", reason: "untested; no binary" });
  expect(capabilities.toolPolicy).toBe(meh);
  expect(Object.keys(capabilities)).toEqual([
    "multiTurn",
    "toolPolicy",
    "wireEvidence",
    "reportedEvidence",
    "cancellation",
    "approvals",
    "elicitation",
    "credentials",
    "cli",
  ]);
  const provider = {
    name: "scripted",
    baseUrl: "http://127.0.0.1:1/v1",
    wireApi: "responses" as const,
    envKey: "KEY",
  };
  expect(providerCredentials(undefined, [])).toBeUndefined();
  expect(providerCredentials(provider, ["KEY"])).toEqual({ status: "ready" });
  expect(providerCredentials(provider, [])?.reason).toBe(
    'provider "scripted" reads its key from KEY, which is not mapped; add credentialEnv: { KEY: "<PARENT_VARIABLE>" }',
  );
});

test("probeOnce keeps a success and asks again after a failure", async () => {
  const cache = new Map<string, Promise<boolean>>();
  let calls = 0;
  const probe = (answer: boolean) => () => Promise.resolve(++calls > 0 && answer);
  expect(await probeOnce(cache, "k", probe(false), (ok) => ok)).toBe(false);
  await Promise.resolve();
  expect(await probeOnce(cache, "k", probe(true), (ok) => ok)).toBe(true);
  expect(await probeOnce(cache, "k", probe(false), (ok) => ok)).toBe(true);
  expect(calls).toBe(2);
});

test("startFailure: one HarnessStartError per cause, with the stderr section", () => {
  const names = { agent: "Kit CLI", process: "kit-cli serve" };
  const context = { names, stderrTail: "boom", aborted: false };
  const exited = startFailure(
    "kit",
    new AgentExited("kit-cli serve", "while waiting", "code 1", "boom"),
    context,
  );
  expect(exited).toBeInstanceOf(HarnessStartError);
  expect(exited.message).toBe(
    'Harness "kit" could not open a session: kit-cli serve exited (code 1) while starting\n--- stderr (last lines) ---\nboom',
  );
  const timeout = startFailure(
    "kit",
    new AgentTimeout("kit-cli serve", "initialize", 10, "Kit CLI"),
    context,
  );
  expect(timeout.message).toContain("kit-cli serve did not answer initialize within 10 ms");
  expect(timeout.message).toContain("raise the Kit CLI option startupTimeoutMs");
  expect(startFailure("kit", new Error("x"), { ...context, aborted: true }).message).toContain(
    "the session was torn down while Kit CLI was starting",
  );
  const given = new HarnessStartError("kit", "as it is");
  expect(startFailure("kit", given, context)).toBe(given);
  expect(startFailure("kit", "plain words", { ...context, stderrTail: "" }).message).toBe(
    'Harness "kit" could not open a session: plain words',
  );
});

test("toolDecision: the allow-list's answer in one wording", () => {
  const policy = new Map([
    ["shipping", new Set(["quote"])],
    ["open", undefined],
  ]);
  expect(toolDecision(policy, "shipping", "quote")).toEqual({
    allowed: true,
    detail: "accepted shipping:quote (in the session's allow-list)",
  });
  expect(toolDecision(policy, "shipping", "ship")).toEqual({
    allowed: false,
    detail: "declined shipping:ship (not in the session's allow-list)",
  });
  expect(toolDecision(policy, "open", "anything").allowed).toBe(true);
});

test("probeCache and cachedVersionProbe: one read per binary while it succeeds", async () => {
  const reads: string[] = [];
  const path = fakeAgent("cached", "kit-cli 1.2.3");
  const probe = cachedVersionProbe((executable) => {
    reads.push(executable.path);
    return readVersion(executable, 10_000);
  });
  const executable: FoundExecutable = {
    found: true,
    path,
    command: path,
    prefix: [],
    source: "path",
  };
  expect((await probe(executable)).ok).toBe(true);
  expect((await probe(executable)).ok).toBe(true);
  expect(reads).toEqual([path]);
  const checks = probeCache<string>((result) => result === "ready");
  let runs = 0;
  expect(await checks("a", async () => (++runs, "down"))).toBe("down");
  await Promise.resolve();
  expect(await checks("a", async () => (++runs, "ready"))).toBe("ready");
  expect(await checks("a", async () => (++runs, "down"))).toBe("ready");
  expect(runs).toBe(2);
});

test("unfinishedCall: a failed turn's running call is incomplete, an interrupted one cancelled", () => {
  expect(unfinishedCall({ agent: "Kit CLI" }, "failed", "it exited")).toEqual({
    status: "incomplete",
    reason: "the turn failed before Kit CLI reported the result of this call: it exited",
  });
  expect(unfinishedCall({ agent: "Kit CLI" }, "interrupted", null, "the end")).toEqual({
    status: "cancelled",
    reason: "the turn was interrupted before Kit CLI reported the end of this call",
  });
});
