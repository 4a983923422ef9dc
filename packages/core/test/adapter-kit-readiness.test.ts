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
  agentCredentials,
  agentReadiness,
  agentReadinessKey,
  elicitationRequest,
  cachedVersionProbe,
  callOutcome,
  executableResolver,
  InvalidHarnessOptions,
  optionReader,
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
  // How it ended is said, not Node's bare "Command failed".
  expect(!failing.ok && failing.reason).toMatch(/failed \(exit code 2\): broken$/);
  const slowPath = join(dir, "slow");
  writeFileSync(slowPath, "#!/bin/sh\nsleep 5\necho 'kit-cli 1.2.3'\n");
  chmodSync(slowPath, 0o755);
  const slow = await readVersion(found(slowPath), 300);
  expect(!slow.ok && slow.reason).toContain("failed (timed out after 300 ms and was killed");
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

test("agentReadiness: the chain's capabilities, the start by name, sessions gated on credentials", async () => {
  const good = fakeAgent("ready-agent", "kit-cli 1.2.3");
  const spec = {
    harness: "kit-cli",
    agent: "Kit CLI",
    executable: {
      found: true as const,
      path: good,
      command: good,
      prefix: [],
      source: "path" as const,
    },
    version: rule,
    probeVersion: (executable: FoundExecutable) => readVersion(executable, 10_000),
    start: { name: "server", probe: async () => ({ status: "ready" as const }) },
  };
  const noLogin = { status: "unavailable" as const, reason: "no login" };
  const readiness = await agentReadiness({ ...spec, credentials: noLogin });
  expect(readiness.harness).toEqual({ name: "kit-cli", version: "1.2.3", executable: good });
  expect(readiness.ready).toBe(false);
  expect(readiness.capabilities).toMatchObject({
    executable: { status: "ready" },
    version: { status: "ready" },
    server: { status: "ready" },
    toolPolicy: { status: "ready" },
    credentials: noLogin,
    multiTurn: { status: "unavailable", reason: "no login" },
  });
  const withFacts = await agentReadiness({
    ...spec,
    credentials: { status: "ready" },
    facts: { elicitation: { status: "unsupported", reason: "not passed on" } },
  });
  expect(withFacts.capabilities.elicitation).toEqual({
    status: "unsupported",
    reason: "not passed on",
  });
  expect(withFacts.capabilities.multiTurn).toEqual({ status: "ready" });
  const missing = await agentReadiness({
    ...spec,
    executable: { found: false, reason: "not here" },
    credentials: { status: "ready" },
  });
  expect(missing.harness).toEqual({ name: "kit-cli", version: null, executable: null });
  expect(missing.capabilities.server).toEqual({
    status: "unavailable",
    reason: "no Kit CLI executable to start",
  });
  expect(missing.capabilities.toolPolicy).toEqual({
    status: "unavailable",
    reason:
      "not here; no Kit CLI executable to ask for its version; no Kit CLI executable to start",
  });
});

test("agentReadinessKey: changes with the executable, the adapter's facts, credentials and options", () => {
  const context = (credentialNames: string[], options: Record<string, unknown> = {}) => ({
    selection: { harness: "kit-cli", models: ["m"], options },
    config: {},
    credentialNames,
  });
  const found = {
    found: true as const,
    path: "/bin/kit",
    command: "/bin/kit",
    prefix: [],
    source: "path" as const,
  };
  const key = agentReadinessKey(found, context(["B", "A"]), "/home/login");
  expect(key).toBe(agentReadinessKey(found, context(["A", "B"]), "/home/login"));
  expect(key).not.toBe(agentReadinessKey(found, context(["A", "B"]), "/other/login"));
  expect(key).not.toBe(agentReadinessKey(found, context(["A"]), "/home/login"));
  expect(key).not.toBe(
    agentReadinessKey(found, context(["A", "B"], { warm: true }), "/home/login"),
  );
  expect(agentReadinessKey({ found: false, reason: "gone" }, context([]))).toContain(
    "missing:gone",
  );
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

test("executableResolver: the harness's own lookup, from a selection and the configuration", () => {
  const agent = fakeAgent("resolved-cli", "kit 1.2.3");
  const resolve = executableResolver(search);
  expect(resolve({ executable: agent }, {})).toMatchObject({
    found: true,
    path: agent,
    source: "selection",
  });
  expect(resolve({}, { M3_KIT_CLI_EXECUTABLE: agent })).toMatchObject({
    found: true,
    source: "config",
  });
  expect(resolve({}, {}, "").found).toBe(false);
});

test("optionReader: unknown names, and each kind of value says what it must be", () => {
  const names = ["warm", "startupTimeoutMs", "retries", "mode"];
  const read = (options: Record<string, unknown>) => optionReader("Kit CLI", options, names);
  const problem = (
    options: Record<string, unknown>,
    use: (r: ReturnType<typeof read>) => unknown,
  ) => {
    try {
      use(read(options));
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidHarnessOptions);
      expect(error).toMatchObject({ code: "M3_INVALID_SELECTION" });
      return (error as Error).message;
    }
    return "no error";
  };
  expect(problem({ wram: true }, () => undefined)).toBe(
    'Kit CLI harness option "wram" is unknown; the options are warm, startupTimeoutMs, retries, mode.',
  );
  expect(problem({ warm: "yes" }, (r) => r.boolean("warm", false))).toBe(
    'Kit CLI harness option "warm" must be true or false, got "yes".',
  );
  expect(problem({ startupTimeoutMs: 10 }, (r) => r.milliseconds("startupTimeoutMs", 30_000))).toBe(
    'Kit CLI harness option "startupTimeoutMs" must be a number of milliseconds of at least 1000, got 10.',
  );
  expect(problem({ retries: 1.5 }, (r) => r.wholeNumber("retries", 0))).toBe(
    'Kit CLI harness option "retries" must be a whole number of at least 0, got 1.5.',
  );
  expect(problem({ mode: "x" }, (r) => r.oneOf("mode", ["a", "b", "c"], "a"))).toBe(
    'Kit CLI harness option "mode" must be "a", "b" or "c", got "x".',
  );
  const given = read({ warm: true, startupTimeoutMs: 5000 });
  expect([
    given.boolean("warm", false),
    given.milliseconds("startupTimeoutMs", 1),
    given.oneOf("mode", ["a", "b"], "b"),
  ]).toEqual([true, 5000, "b"]);
  class MyOptions extends InvalidHarnessOptions {}
  expect(() =>
    optionReader("Kit CLI", { nope: 1 }, names, (o, p) => new MyOptions("Kit CLI", o, p)),
  ).toThrow(MyOptions);
});

test("agentCredentials: a provider's key, else the agent's rule for names, else the login", () => {
  const provider = {
    name: "p",
    baseUrl: "http://127.0.0.1:1",
    wireApi: "responses" as const,
    envKey: "K",
  };
  const named = (names: readonly string[]) =>
    names.includes("KIT_KEY")
      ? ({ status: "ready" } as const)
      : ({ status: "unavailable", reason: "map KIT_KEY" } as const);
  const noLogin = { usable: false, reason: "no login at ~/.kit" };
  expect(agentCredentials(provider, [], { named, login: noLogin })).toMatchObject({
    status: "unavailable",
  });
  expect(agentCredentials(provider, ["K"], { named, login: noLogin })).toEqual({ status: "ready" });
  expect(agentCredentials(undefined, ["OTHER"], { named, login: noLogin })).toEqual({
    status: "unavailable",
    reason: "map KIT_KEY",
  });
  expect(agentCredentials(undefined, [], { named, login: noLogin })).toEqual({
    status: "unavailable",
    reason: "no provider and no credentials given, and no login at ~/.kit",
  });
  expect(agentCredentials(undefined, [], { named, login: { usable: true } })).toEqual({
    status: "ready",
  });
});

test("elicitationRequest: url mode only when said, the rest only when given", () => {
  expect(
    elicitationRequest({
      server: "desk",
      mode: "url",
      url: "https://127.0.0.1/x",
      elicitationId: 7,
    }),
  ).toEqual({
    server: "desk",
    mode: "url",
    message: "",
    url: "https://127.0.0.1/x",
  });
  const schema = { type: "object", properties: {} };
  expect(
    elicitationRequest({ server: "desk", message: "Seat?", requestedSchema: schema, url: null }),
  ).toEqual({
    server: "desk",
    mode: "form",
    message: "Seat?",
    requestedSchema: schema,
  });
});

test("callOutcome: unfinished without a result, success, else what the agent's rule reads in the text", () => {
  const names = { agent: "Kit CLI" };
  const unfinished = { status: "cancelled" as const, reason: "the turn was interrupted" };
  const failed = (text: string): "policy_denied" | "tool_error" =>
    /denied/.test(text) ? "policy_denied" : "tool_error";
  expect(callOutcome(names, undefined, unfinished, failed)).toEqual({
    status: "cancelled",
    error: "the turn was interrupted",
  });
  expect(callOutcome(names, { isError: false, text: "9 USD" }, unfinished, failed)).toEqual({
    status: "success",
  });
  expect(
    callOutcome(names, { isError: true, text: "denied by policy" }, unfinished, failed),
  ).toEqual({
    status: "policy_denied",
    error: "denied by policy",
  });
  expect(callOutcome(names, { isError: true, text: "" }, unfinished, failed)).toEqual({
    status: "tool_error",
    error: "Kit CLI reported an error without a message",
  });
});
