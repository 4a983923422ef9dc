// A damaged line in an earlier run's ledger (a power loss or a full disk cut a write short)
// is skipped and reported; the preset's global setup still sweeps what the rest of the
// ledger names, and the run goes on. Before, JSON.parse's bare SyntaxError stopped every
// later run in global setup until someone deleted the folder.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import globalSetup from "../dist/main/run-setup";
import { readRecords, type DamagedLine } from "../dist/shared/run-ledger";
import { SHARED_SERVICES } from "../dist/main/shared-services";

let project: string;
let leftovers: string[];
const savedEnv = { ...process.env };

beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "m3-ledger-project-"));
  leftovers = [];
});

afterEach(async () => {
  // Global setup's watcher of the run's workers, and the run's environment: this worker's own.
  await Promise.all(SHARED_SERVICES.splice(0).map((stop) => stop()));
  for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
  Object.assign(process.env, savedEnv);
  jest.restoreAllMocks();
  for (const dir of [project, ...leftovers]) rmSync(dir, { recursive: true, force: true });
});

/** A pid no process has any more: a child that already exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid;
}

/** A folder the earlier run's kit made and never removed (its worker was killed). */
function leftoverFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "m3-ledger-leftover-"));
  writeFileSync(join(dir, "auth.json"), "{}");
  leftovers.push(dir);
  return dir;
}

test("global setup skips and reports damaged ledger lines of an earlier run, and sweeps the rest", async () => {
  const writer = deadPid();
  const run = join(project, ".m3", "runs", "earlier-run");
  mkdirSync(join(run, "dirs"), { recursive: true });
  mkdirSync(join(run, "processes"), { recursive: true });
  // Its owner, Jest's main process, is gone: the run is stale.
  writeFileSync(join(run, "owner.json"), JSON.stringify({ pid: writer, startTicks: "1" }));
  const first = leftoverFolder();
  const second = leftoverFolder();
  const dirsLedger = join(run, "dirs", `${writer}.jsonl`);
  writeFileSync(
    dirsLedger,
    [
      JSON.stringify({ path: first }),
      `{"path":"${tmpdir()}/m3-ab{"path":"x"}`, // a torn write the next append ran into
      JSON.stringify({ path: second }),
      `{"path":"${tmpdir()}/m3-cut`, // the last write, cut short: no closing brace, no newline
    ].join("\n"),
  );
  const processesLedger = join(run, "processes", `${writer}.jsonl`);
  writeFileSync(
    processesLedger,
    `${JSON.stringify({ pid: deadPid(), startTicks: "1", label: "relay" })}\n{"pid":12`,
  );
  writeFileSync(join(project, "m3.config.json"), JSON.stringify({ resultsDir: ".m3" }));
  const warnings: string[] = [];
  jest.spyOn(console, "warn").mockImplementation((...args: unknown[]) => {
    warnings.push(args.map(String).join(" "));
  });
  jest.spyOn(console, "log").mockImplementation(() => undefined);

  await expect(globalSetup({ rootDir: project })).resolves.toBeUndefined();

  // It went on: this run has its folder, and the earlier run was swept.
  const runDir = process.env.M3_RUN_DIR!;
  expect(existsSync(join(runDir, "run.json"))).toBe(true);
  const swept = JSON.parse(readFileSync(join(run, "swept.json"), "utf8")) as { removed: string[] };
  // Both folders the intact lines name are gone, those before and after the damage alike.
  expect(existsSync(first)).toBe(false);
  expect(existsSync(second)).toBe(false);
  expect(swept.removed.sort()).toEqual([first, second].sort());
  // Each damaged line reported once, by file and line, saying what is wrong.
  const damaged = warnings.filter((line) => line.includes("skipped line"));
  expect(damaged).toEqual([
    expect.stringContaining(
      `skipped line 2 of the ledger ${processesLedger}: cut short: "{\\"pid\\":12".`,
    ),
    expect.stringContaining(`skipped line 2 of the ledger ${dirsLedger}: not JSON:`),
    expect.stringContaining(`skipped line 4 of the ledger ${dirsLedger}: cut short:`),
  ]);
  expect(damaged.every((line) => line.includes("The rest of it was read"))).toBe(true);
  expect(warnings.join("\n")).toMatch(
    /earlier run\(s\) earlier-run ended without cleaning up; removed 2 temporary folder/,
  );
});

test("readRecords hands each damaged line to its caller and returns every intact record", () => {
  const dir = join(project, "run");
  mkdirSync(join(dir, "executions"), { recursive: true });
  writeFileSync(
    join(dir, "executions", "41.jsonl"),
    ['{"n":1}', "[1,2]", "null", '{"n":2}', '{"n":'].join("\n"),
  );
  const seen: DamagedLine[] = [];
  const records = readRecords<{ n: number }>(dir, "executions", undefined, (line) =>
    seen.push(line),
  );
  expect(records).toEqual([{ n: 1 }, { n: 2 }]);
  expect(seen.map(({ line, problem }) => `${line}: ${problem}`)).toEqual([
    '2: not a record: "[1,2]".',
    '3: not a record: "null".',
    '5: cut short: "{\\"n\\":".',
  ]);
});
