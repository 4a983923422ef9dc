/**
 * Readiness per capability, against the real binary and small stand-ins for broken ones:
 * each way of not being ready says why, and a session refuses to start on it.
 */
import {
  readFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HarnessNotReady, MCPTestKit } from "@jest-m3/core";
import codexHarness, {
  InvalidCodexOptions,
  resolveCodexExecutable,
  TESTED_CODEX_VERSION,
} from "@jest-m3/harness-codex";
import { codexSelection, shippingServer } from "./support/codex";
import { copyHostLogin, createHomes, findHostLogin } from "../src/home";
import {
  expectEveryCapabilityReady,
  fakeAgentBinary,
  readinessContext,
} from "@jest-m3/test-support";

const provider = {
  name: "scripted",
  baseUrl: "http://127.0.0.1:9/v1",
  wireApi: "responses" as const,
};
let dir: string;
let emptyHome: string;

const context = readinessContext;

/**
 * A stand-in `codex` that prints `versionOutput` for --version and runs the real one
 * otherwise, logging every invocation's arguments to `log` if given.
 */
function fakeCodex(name: string, versionOutput: string, log?: string): string {
  const real = resolveCodexExecutable({}, {});
  if (!real.found) throw new Error(real.reason);
  return fakeAgentBinary(dir, name, real.path, versionOutput, log);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "m3-codex-readiness-"));
  emptyHome = join(dir, "empty-codex-home");
  mkdirSync(emptyHome);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Codex readiness", () => {
  test("the installed binary with a provider: every capability ready", async () => {
    const readiness = await codexHarness.readiness(context(codexSelection(provider)));
    expectEveryCapabilityReady(readiness, {
      name: "codex",
      version: TESTED_CODEX_VERSION,
      executable: /codex(\.exe)?$/,
    });
  });

  test("probes run once per executable and version", async () => {
    const log = join(dir, "invocations.log");
    const counted = fakeCodex("codex-counted", `codex-cli ${TESTED_CODEX_VERSION}`, log);
    for (const name of ["first", "second", "third"]) {
      const readiness = await codexHarness.readiness(
        context(codexSelection(provider, { name, executable: counted })),
      );
      expect(readiness.ready).toBe(true);
    }
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual([
      "--version",
      expect.stringMatching(/^app-server /),
    ]);
  });

  test("a missing executable: unavailable, naming the path", async () => {
    const missing = join(dir, "no-such-codex");
    const readiness = await codexHarness.readiness(
      context(codexSelection(provider, { executable: missing })),
    );
    expect(readiness.ready).toBe(false);
    expect(readiness.harness).toEqual({ name: "codex", version: null, executable: null });
    expect(readiness.capabilities.executable).toEqual({
      status: "unavailable",
      reason: `The selection's executable "${missing}" does not exist.`,
    });
    expect(readiness.capabilities.multiTurn.status).toBe("unavailable");
    expect(readiness.capabilities.multiTurn.reason).toContain(missing);
    expect(readiness.capabilities.credentials.status).toBe("ready");

    const configured = await codexHarness.readiness(
      context(codexSelection(provider), { M3_CODEX_EXECUTABLE: missing }),
    );
    expect(configured.capabilities.executable?.reason).toBe(
      `M3_CODEX_EXECUTABLE "${missing}" does not exist.`,
    );
  });

  test("an unparsable version: unavailable, quoting what it printed", async () => {
    const garbage = fakeCodex("codex-garbage", "codex build (unknown)");
    const readiness = await codexHarness.readiness(
      context(codexSelection(provider, { executable: garbage })),
    );
    expect(readiness.ready).toBe(false);
    expect(readiness.harness).toEqual({ name: "codex", version: null, executable: garbage });
    expect(readiness.capabilities.executable?.status).toBe("ready");
    expect(readiness.capabilities.version).toEqual({
      status: "unavailable",
      reason: `\`${garbage} --version\` printed "codex build (unknown)", which holds no version number x.y.z.`,
    });
    expect(readiness.capabilities.multiTurn.status).toBe("unavailable");
  });

  test("an older version is unavailable; a newer one is degraded but ready", async () => {
    const older = await codexHarness.readiness(
      context(
        codexSelection(provider, { executable: fakeCodex("codex-old", "codex-cli 0.170.3") }),
      ),
    );
    expect(older.ready).toBe(false);
    expect(older.harness.version).toBe("0.170.3");
    expect(older.capabilities.version).toEqual({
      status: "unavailable",
      reason: expect.stringContaining(`older than ${TESTED_CODEX_VERSION}`),
    });

    const newer = await codexHarness.readiness(
      context(
        codexSelection(provider, { executable: fakeCodex("codex-new", "codex-cli 0.172.0") }),
      ),
    );
    expect(newer.ready).toBe(true);
    expect(newer.capabilities.version).toEqual({
      status: "degraded",
      reason: expect.stringContaining(`newer than ${TESTED_CODEX_VERSION}`),
    });
    expect(newer.capabilities.appServer?.status).toBe("ready"); // the real app-server answered
    expect(newer.capabilities.multiTurn.status).toBe("degraded");
  });

  test("no provider, no credentials, no login: credentials and multiTurn unavailable, the rest ready", async () => {
    const readiness = await codexHarness.readiness(
      context(codexSelection(undefined), { CODEX_HOME: emptyHome }),
    );
    expect(readiness.ready).toBe(false);
    const reason = `no provider and no credentials given, and no Codex login at ${join(emptyHome, "auth.json")}`;
    expect(readiness.capabilities.credentials).toEqual({
      status: "unavailable",
      reason: expect.stringContaining(reason),
    });
    expect(readiness.capabilities.multiTurn).toEqual(readiness.capabilities.credentials);
    expect(readiness.capabilities.toolPolicy.status).toBe("ready");
    expect(readiness.capabilities.appServer?.status).toBe("ready");
  });

  test("credentials: a login file is usable, a symlinked one is refused, a key without a provider is explained", async () => {
    const home = join(dir, "login-home");
    mkdirSync(home);
    writeFileSync(join(home, "auth.json"), '{"OPENAI_API_KEY":"not-a-real-key"}', { mode: 0o600 });
    const withLogin = await codexHarness.readiness(
      context(codexSelection(undefined), { M3_CODEX_HOME: home }),
    );
    expect(withLogin.capabilities.credentials).toEqual({ status: "ready" });

    const linked = join(dir, "linked-home");
    mkdirSync(linked);
    symlinkSync(join(home, "auth.json"), join(linked, "auth.json"));
    expect(findHostLogin(linked)).toEqual({
      usable: false,
      reason: expect.stringContaining("symbolic link"),
    });
    const refused = await codexHarness.readiness(
      context(codexSelection(undefined), { CODEX_HOME: linked }),
    );
    expect(refused.capabilities.credentials.status).toBe("unavailable");

    const keyOnly = await codexHarness.readiness(
      context(codexSelection(undefined, { credentialEnv: { OPENAI_API_KEY: "MY_KEY" } }), {}, [
        "OPENAI_API_KEY",
      ]),
    );
    expect(keyOnly.capabilities.credentials).toEqual({
      status: "unavailable",
      reason: expect.stringContaining('envKey: "OPENAI_API_KEY"'),
    });

    const unmapped = await codexHarness.readiness(
      context(codexSelection({ ...provider, envKey: "PROXY_KEY" })),
    );
    expect(unmapped.capabilities.credentials.reason).toContain("PROXY_KEY");
    const mapped = await codexHarness.readiness(
      context(codexSelection({ ...provider, envKey: "PROXY_KEY" }), {}, ["PROXY_KEY"]),
    );
    expect(mapped.capabilities.credentials).toEqual({ status: "ready" });
  });

  test("malformed Codex options are a usage error, naming the option", async () => {
    await expect(
      codexHarness.readiness(context(codexSelection(provider, { options: { sandbox: "yolo" } }))),
    ).rejects.toThrow(/Codex harness option "sandbox" must be "read-only" or "workspace-write"/);
    await expect(
      codexHarness.readiness(
        context(codexSelection(provider, { options: { sandbx: "read-only" } })),
      ),
    ).rejects.toBeInstanceOf(InvalidCodexOptions);
  });

  test("a session on a harness that is not ready is refused with HarnessNotReady, before anything starts", async () => {
    const kit = new MCPTestKit({ env: {}, harnesses: [codexHarness] });
    try {
      const missing = join(dir, "still-no-codex");
      const [agent] = kit.agents([
        { harness: "codex", models: ["scripted"], executable: missing, provider },
      ]);
      const session = agent!.session({ server: shippingServer(join(dir, "calls.jsonl")) });
      const opening = session.open();
      await expect(opening).rejects.toBeInstanceOf(HarnessNotReady);
      await expect(opening).rejects.toThrow(missing);
      expect(kit.processes).toEqual([]);
    } finally {
      await kit.close();
    }
  });
});

describe("the host login copy", () => {
  test("open() copies auth.json (not a link) into the fresh CODEX_HOME with mode 0600", async () => {
    const root = join(dir, "copy-root");
    mkdirSync(root);
    const homes = await createHomes(root);
    const source = join(dir, "login-source.json");
    writeFileSync(source, '{"OPENAI_API_KEY":"not-a-real-key"}', { mode: 0o644 });
    await copyHostLogin(source, homes);
    const copy = join(homes.codexHome, "auth.json");
    expect(await readFile(copy, "utf8")).toBe('{"OPENAI_API_KEY":"not-a-real-key"}');
    expect(statSync(copy).mode & 0o777).toBe(0o600);

    const link = join(dir, "login-link.json");
    symlinkSync(source, link);
    mkdirSync(join(dir, "copy-root-2"));
    const other = await createHomes(join(dir, "copy-root-2"));
    await expect(copyHostLogin(link, other)).rejects.toThrow(/ELOOP|symbolic/);
  });
});
