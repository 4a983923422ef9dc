// The probe cache's file between runs: what one run stores the next one reads; a damaged or
// foreign file is ignored and replaced; old entries go; M3_PROBE_CACHE=off turns it off.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { wrappedGemini } from "@jest-m3/test-support";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { MAX_AGE_MS, openProbeCache, PROBE_CACHE_FILE } from "../src/shared/probe-cache";
import { makeUserProject, removeTempDir, REPO, runJest } from "./support/user-project";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "m3-probe-cache-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("what one run stores, the next run reads, and says it did", () => {
  const first = openProbeCache(dir, {})!;
  expect(first.get("agent")).toBeUndefined();
  first.set("agent", { acp: { status: "ready" } });
  first.save();
  expect(existsSync(join(dir, PROBE_CACHE_FILE))).toBe(true);

  const second = openProbeCache(dir, {})!;
  expect(second.hits.size).toBe(0);
  expect(second.get("agent")).toEqual({ acp: { status: "ready" } });
  expect(second.get("other")).toBeUndefined();
  expect([...second.hits]).toEqual(["agent"]);
});

test("two processes that opened the file at once keep each other's answers when they save", () => {
  const one = openProbeCache(dir, {})!;
  const two = openProbeCache(dir, {})!;
  one.set("codex", { version: "c" });
  one.set("gemini", { version: "a" });
  one.save();
  two.set("opencode", { version: "b" });
  two.set("gemini", { version: "newer" });
  two.save();
  const next = openProbeCache(dir, {})!;
  expect(next.get("codex")).toEqual({ version: "c" }); // one's, which two never read
  expect(next.get("opencode")).toEqual({ version: "b" });
  expect(next.get("gemini")).toEqual({ version: "newer" }); // the later save's own entry wins
});

test("a run that stored and used nothing does not write the file", () => {
  const cache = openProbeCache(dir, {})!;
  cache.get("missing");
  cache.save();
  expect(existsSync(join(dir, PROBE_CACHE_FILE))).toBe(false);
});

test.each([
  ["damaged", "{ not json"],
  ["foreign", JSON.stringify({ format: "something else", entries: { agent: { value: 1 } } })],
])("a %s file is ignored, then replaced", (_kind, text) => {
  const file = join(dir, PROBE_CACHE_FILE);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  const cache = openProbeCache(dir, {})!;
  expect(cache.get("agent")).toBeUndefined();
  cache.set("agent", 2);
  cache.save();
  expect(openProbeCache(dir, {})!.get("agent")).toBe(2);
});

test("an entry no run used for two weeks is not served, and is dropped when written", () => {
  let now = 1_000_000;
  const first = openProbeCache(dir, {}, () => now)!;
  first.set("old", "a");
  first.set("fresh", "b");
  first.save();
  now += MAX_AGE_MS / 2;
  const second = openProbeCache(dir, {}, () => now)!;
  expect(second.get("fresh")).toBe("b"); // used: its age starts again
  second.save();
  now += MAX_AGE_MS / 2 + 1;
  const third = openProbeCache(dir, {}, () => now)!;
  expect(third.get("old")).toBeUndefined();
  expect(third.get("fresh")).toBe("b");
  third.save();
  const stored = JSON.parse(readFileSync(join(dir, PROBE_CACHE_FILE), "utf8")) as {
    entries: Record<string, unknown>;
  };
  expect(Object.keys(stored.entries)).toEqual(["fresh"]);
});

test("only plain JSON is kept", () => {
  const cache = openProbeCache(dir, {})!;
  cache.set("function", () => 1);
  cache.set("date", new Date(0));
  cache.save();
  const next = openProbeCache(dir, {})!;
  expect(next.get("function")).toBeUndefined();
  expect(next.get("date")).toBe("1970-01-01T00:00:00.000Z");
});

test.each(["off", "0", "false", "OFF"])("M3_PROBE_CACHE=%s turns it off", (value) => {
  expect(openProbeCache(dir, { M3_PROBE_CACHE: value })).toBeUndefined();
  expect(openProbeCache(dir, { M3_PROBE_CACHE: "on" })).toBeDefined();
});

describe("in a run", () => {
  test("a worker's own probe (a selection global setup did not probe) is kept for the next run", () => {
    // Gemini CLI behind a wrapper that logs each start: the selection names the wrapper as its
    // executable, which no configured harness does, so the worker probes it itself.
    const project = makeUserProject({
      "m3.config.json": JSON.stringify({ harnesses: [] }),
      "worker-probe.test.ts": `import { join } from "node:path";
import { MCPTestKit } from "jest-m3";
test("readiness", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([{
    harness: "gemini",
    models: ["gemini-scripted"],
    executable: join(__dirname, "gemini-wrapper"),
    provider: { name: "scripted", baseUrl: "http://127.0.0.1:9", wireApi: "gemini" },
  }]);
  const readiness = await agent!.readiness();
  expect(readiness.harness.version).toBe("0.61.0");
});
`,
    });
    const log = join(project, "starts.log");
    wrappedGemini(project, "gemini-wrapper", `echo "$*" >> ${JSON.stringify(log)}`);
    const starts = (): number =>
      existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0;
    try {
      const first = runJest(project, { timeoutMs: 120_000 });
      expect(first.output).toContain("1 passed");
      const probed = starts();
      expect(probed).toBeGreaterThan(0); // the worker started Gemini CLI to ask
      const second = runJest(project, { timeoutMs: 120_000 });
      expect(second.output).toContain("1 passed");
      expect(starts()).toBe(probed); // the next run's worker started nothing
      const off = runJest(project, { env: { M3_PROBE_CACHE: "off" }, timeoutMs: 120_000 });
      expect(off.output).toContain("1 passed");
      expect(starts()).toBeGreaterThan(probed);
    } finally {
      removeTempDir(project);
    }
  });

  test("the second run of a project takes Gemini CLI's answers from the first run's cache", () => {
    const project = makeUserProject({
      "m3.config.json": JSON.stringify({
        harnesses: ["gemini"],
        scriptedModel: { script: "model-script.json" },
      }),
      "model-script.json": readFileSync(
        join(REPO, "examples", "shipping", "model-script.json"),
        "utf8",
      ),
      // A test that uses the kit, so global setup probes the configured harness.
      "uses-kit.test.ts":
        'import { MCPTestKit } from "jest-m3";\ntest("kit", () => {\n  expect(typeof MCPTestKit).toBe("function");\n});\n',
    });
    try {
      const first = runJest(project, { timeoutMs: 120_000 });
      expect(first.output).toContain("1 passed");
      expect(first.output).toMatch(/jest-m3: harness gemini \S+ is ready\n/);
      expect(existsSync(join(project, ".m3", PROBE_CACHE_FILE))).toBe(true);
      const second = runJest(project, { timeoutMs: 120_000 });
      expect(second.output).toContain("1 passed");
      expect(second.output).toMatch(
        /jest-m3: harness gemini \S+ is ready \(probe answers cached: the binary is unchanged/,
      );
      const off = runJest(project, { env: { M3_PROBE_CACHE: "off" }, timeoutMs: 120_000 });
      expect(off.output).toMatch(/jest-m3: harness gemini \S+ is ready\n/);
    } finally {
      removeTempDir(project);
    }
  });
});
