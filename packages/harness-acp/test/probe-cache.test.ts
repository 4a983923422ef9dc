/**
 * Readiness across runs: with the runner's probe cache, the real Gemini CLI is started once
 * to answer `--version` and `initialize`; a later run (a fresh module, as a new Jest run
 * has) with the same binary starts nothing and gets the same answer; a changed binary is
 * probed again. The binary is a wrapper script that logs each start and runs the real one.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProbeCache, Readiness, ReadinessContext } from "@jest-m3/core/harness";
import { wrappedGemini } from "@jest-m3/test-support";
import { selection } from "./support/acp";

jest.setTimeout(120_000);

const provider = { name: "scripted", baseUrl: "http://127.0.0.1:9", wireApi: "gemini" as const };
let dir: string;
let binary: string;
let log: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "m3-acp-probe-cache-"));
  log = join(dir, "starts.log");
  binary = wrappedGemini(dir, "gemini", `echo "$*" >> ${JSON.stringify(log)}`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The starts of the wrapper so far, one line each (its arguments). */
function starts(): string[] {
  return existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
}

/** A cache as a runner keeps it: plain JSON between runs. */
function jsonCache(): ProbeCache & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    get: (key) => (entries.has(key) ? (JSON.parse(entries.get(key)!) as unknown) : undefined),
    set: (key, value) => void entries.set(key, JSON.stringify(value)),
  };
}

/** Readiness from a fresh copy of the adapter (no answer kept in memory), as a new run. */
async function readinessInNewRun(cache: ProbeCache): Promise<Readiness> {
  let harness: typeof import("@jest-m3/harness-acp").geminiHarness | undefined;
  await jest.isolateModulesAsync(async () => {
    harness = (await import("@jest-m3/harness-acp")).geminiHarness;
  });
  const context: ReadinessContext = {
    selection: selection("gemini", provider, { executable: binary }),
    config: {},
    credentialNames: [],
    probeCache: cache,
  };
  // The cache is filled when the probe settles, just after readiness answers.
  const readiness = await harness!.readiness(context);
  await new Promise((resolve) => setImmediate(resolve));
  return readiness;
}

test("a run with the same binary starts nothing; a changed binary is probed again", async () => {
  const cache = jsonCache();
  const first = await readinessInNewRun(cache);
  expect(first.ready).toBe(true);
  expect(first.harness.version).toBe("0.61.0");
  const probed = starts();
  // --version, and (meanwhile) the agent that answered initialize
  expect(probed).toHaveLength(2);
  expect(probed.filter((args) => args === "--version")).toHaveLength(1);
  expect([...cache.entries.keys()].map((key) => (JSON.parse(key) as string[])[0]).sort()).toEqual([
    "acp:initialize",
    "acp:version",
  ]);

  const second = await readinessInNewRun(cache);
  expect(starts()).toEqual(probed); // nothing started
  expect(second.capabilities).toEqual(first.capabilities);
  expect(second.harness.version).toBe("0.61.0");

  // Same path, new modification time: another binary as far as the cache knows.
  const later = new Date(Date.now() + 60_000);
  utimesSync(binary, later, later);
  appendFileSync(log, ""); // the log itself is not the binary
  const third = await readinessInNewRun(cache);
  expect(third.ready).toBe(true);
  expect(starts()).toHaveLength(4);
  expect(cache.entries.size).toBe(4);
});

test("a damaged cached answer is not used: the agent is probed", async () => {
  const cache = jsonCache();
  await readinessInNewRun(cache);
  const before = starts().length;
  for (const key of cache.entries.keys()) cache.entries.set(key, JSON.stringify({ ok: "yes" }));
  const readiness = await readinessInNewRun(cache);
  expect(readiness.ready).toBe(true);
  expect(starts()).toHaveLength(before + 2);
});
