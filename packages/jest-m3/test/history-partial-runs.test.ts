// Partial merges, like-with-like baselines, a stable order and run-folder retention, on the
// history's own file (sql.js), the real command line and real folders:
// - merge-reports refuses a merge with a shard missing (exit 2, naming it and the override),
//   writes nothing; with --allow-partial it marks the run partial in report.json, the page
//   and the history, and diff never takes it as a baseline by itself.
// - diff's default baseline is the latest complete run of the same selection, not a run of
//   one file; its changes are listed in a stable order.
// - pruneRuns keeps the newest N run folders, and never the current run, a run in progress
//   or one being served.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processStartTime } from "@jest-m3/core/lean";
import { serveReport } from "../dist/cli/show-report";
import { queryRows } from "../dist/store/engine";
import { readHistory } from "../dist/store/history";
import { recordRunInStore } from "../dist/store/record";
import { markServing, pruneRuns } from "../dist/main/run-retention";
import { RUN_OWNER } from "../dist/main/run-guard";
import type { RunSelection } from "../dist/shared/run-selection";
import { runCli } from "./support/cli";
import { validBlob } from "./support/blobs";
import { craftedRun, type CraftedTest } from "./support/crafted-run";
import { removeTempDir } from "./support/user-project";

let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "jest-m3-partial-"));
});
afterEach(() => removeTempDir(project));

const cli = (...argv: string[]) => runCli(project, ...argv);

/** Shard `index` of `count` of run `name`: a folder with its blob. */
function shard(name: string, index: number, count: number): string {
  const dir = join(project, "shards", `${name}-${index}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "blob.json"), JSON.stringify(validBlob(index, count)));
  return dir;
}

const mergedId = (out: string): string => /into run (\S+):/.exec(out)![1]!;

test("a merge with a shard missing is refused; --allow-partial marks it, and diff never takes it as a baseline", async () => {
  const complete = await cli("merge-reports", shard("a", 1, 3), shard("a", 2, 3), shard("a", 3, 3));
  expect(complete.code).toBe(0);
  const first = mergedId(complete.out);

  const refused = await cli("merge-reports", shard("b", 1, 3), shard("b", 3, 3));
  expect(refused.code).toBe(2);
  expect(refused.err).toContain("shard(s) 2 of 3 missing (given: 1, 3)");
  expect(refused.err).toContain("--allow-partial");
  expect(refused.err).toContain("[M3_SHARDS_MISSING] Nothing was merged.");
  expect(refused.out).toBe("");

  const partial = await cli("merge-reports", "--allow-partial", shard("b", 1, 3), shard("b", 3, 3));
  expect(partial.code).toBe(1);
  expect(partial.err).toContain(
    "partial run (--allow-partial): shard(s) 2 of 3 missing; the counts above are of the merged shards only",
  );
  const partialId = mergedId(partial.out);
  const dir = join(project, ".m3", "runs", partialId);
  const json = JSON.parse(readFileSync(join(dir, "report.json"), "utf8"));
  expect(json).toMatchObject({
    success: false,
    partial: true,
    missingShards: { count: 3, missing: [2] },
  });
  expect(readFileSync(join(dir, "report.html"), "utf8")).toContain(
    '<div class="partial-run" id="partial-run">Partial run: shard(s) 2 of 3 missing',
  );

  const last = mergedId(
    (await cli("merge-reports", shard("c", 1, 3), shard("c", 2, 3), shard("c", 3, 3))).out,
  );
  const db = await readHistory(join(project, ".m3", "history.sqlite"));
  try {
    expect(
      queryRows(
        db,
        "SELECT id, partial, missing_shards, shard_count, tests FROM runs ORDER BY seq",
      ),
    ).toEqual([
      { id: first, partial: 0, missing_shards: null, shard_count: 3, tests: 3 },
      { id: partialId, partial: 1, missing_shards: "2", shard_count: 3, tests: 2 },
      { id: last, partial: 0, missing_shards: null, shard_count: 3, tests: 3 },
    ]);
  } finally {
    db.close();
  }

  // The latest run's default baseline skips the partial one.
  const diff = await cli("diff");
  expect(diff.out).toContain(`jest-m3 diff: ${first} (green) → ${last} (green)`);
  expect(diff.out).not.toContain("Note:");
  expect(diff.code).toBe(0);
  for (const spec of ["last-green", "pool:2"]) {
    expect((await cli("diff", "--baseline", spec, "--json")).out).not.toContain(partialId);
  }
  // Named, it is used, and said to be partial; a partial run itself is never "no regressions".
  const named = await cli("diff", "--baseline", partialId);
  expect(named.out).toContain(
    `Note: the baseline ${partialId} is a partial run (shard(s) 2 of 3 missing)`,
  );
  const ofPartial = await cli("diff", partialId);
  expect(ofPartial.code).toBe(1);
  expect(ofPartial.out).toContain(`Note: ${partialId} is a partial run (shard(s) 2 of 3 missing)`);
  expect(ofPartial.out).toContain(
    `partial run: ${partialId} has shard(s) 2 of 3 missing; their tests were not compared`,
  );
  expect(ofPartial.out).not.toContain("No regressions.");
});

const WHOLE: RunSelection = { patterns: [], testNamePattern: null, filters: [], projects: [] };
const ONE_FILE: RunSelection = { ...WHOLE, patterns: ["b.test.ts"] };

async function record(id: string, tests: CraftedTest[], selection: RunSelection): Promise<void> {
  mkdirSync(join(project, ".m3"), { recursive: true });
  await recordRunInStore(
    join(project, ".m3", "history.sqlite"),
    { ...craftedRun(id, tests), selection },
    null,
  );
}

test("the default baseline is the latest complete run of the same selection; changes in a stable order", async () => {
  const names = ["zeta", "alpha", "Mid", "beta"];
  const calls = (tool: string) => ({ calls: [{ server: "s", tool }] });
  await record(
    "whole-1",
    names.map((name) => ({ name, verdict: "passed", sessions: [calls("old")] })),
    WHOLE,
  );
  await record("one-file", [{ name: "alpha", verdict: "passed" }], ONE_FILE);
  await record(
    "whole-2",
    [
      ...names.map((name) => ({
        name,
        verdict: name === "Mid" ? ("passed" as const) : ("failed" as const),
        sessions: [calls(name === "zeta" ? "old" : "new")],
      })),
      { name: "gamma", verdict: "passed" },
      { name: "delta", verdict: "passed" },
    ],
    WHOLE,
  );
  const diff = await cli("diff");
  expect(diff.out).toContain("jest-m3 diff: whole-1 (green) → whole-2 (red)");
  // Before: the one-file run was the baseline, and five tests read as new.
  expect(diff.out).toContain("New tests (2)\n  delta\n  gamma\n");
  expect(diff.out).toContain(
    "Failing their requirement (3)\n  alpha  (a.test.ts; passed before)\n  beta  (a.test.ts; passed before)\n  zeta  (a.test.ts; passed before)\n",
  );
  expect(diff.out).toContain(
    "Tests that flipped (3)\n  passed → failed  alpha  (a.test.ts)\n  passed → failed  beta  (a.test.ts)\n  passed → failed  zeta  (a.test.ts)\n",
  );
  expect(diff.out).toContain(
    "New calls (3)\n  s:new ×1  Mid\n  s:new ×1  alpha\n  s:new ×1  beta\n",
  );
  // The same history read twice lists the same, byte for byte.
  expect((await cli("diff")).out).toBe(diff.out);

  const lone = await cli("diff", "one-file");
  expect(lone.code).toBe(2);
  expect(lone.err).toContain(
    "No run of the same selection (files matching b.test.ts), complete, before one-file in the history.",
  );
});

/** A run folder named like a run id, minutes apart. */
function runFolder(runs: string, minute: number): string {
  const id = `2026-05-01T10-${String(minute).padStart(2, "0")}-00-000Z-abc${minute}`;
  mkdirSync(join(runs, id), { recursive: true });
  writeFileSync(join(runs, id, "report.html"), "<html></html>");
  return id;
}

test("retention keeps the newest N run folders, never the current, one in progress or one served", async () => {
  const runs = join(project, ".m3", "runs");
  const ids = [1, 2, 3, 4, 5, 6, 7].map((minute) => runFolder(runs, minute));
  mkdirSync(join(runs, "my-notes"));
  // Run 2 is in progress: its owner is this very process, not ended.
  writeFileSync(
    join(runs, ids[1]!, RUN_OWNER),
    JSON.stringify({ pid: process.pid, startTicks: processStartTime(process.pid) }),
  );
  // Run 3's report is being served.
  const { server } = await serveReport(join(runs, ids[2]!, "report.html"));
  try {
    const result = pruneRuns(runs, 2, join(runs, ids[0]!));
    expect(result.removed).toEqual([ids[3], ids[4]]);
    expect(result.kept).toEqual([
      { run: ids[0], why: "the current run" },
      { run: ids[1], why: "in progress" },
      { run: ids[2], why: "its report is being served" },
    ]);
  } finally {
    await new Promise((done) => server.close(done));
  }
  expect(existsSync(join(runs, "my-notes"))).toBe(true);
  // Served no more, ended: both go now.
  writeFileSync(
    join(runs, ids[1]!, RUN_OWNER),
    JSON.stringify({ pid: process.pid, startTicks: processStartTime(process.pid), ended: "now" }),
  );
  expect(pruneRuns(runs, 2, null).removed).toEqual([ids[0], ids[1], ids[2]]);
  // While the history page is served, no run folder is removed.
  runFolder(runs, 8);
  const unmark = markServing(runs);
  expect(pruneRuns(runs, 1, null).removed).toEqual([]);
  unmark();
  expect(pruneRuns(runs, 1, null).removed).toEqual([ids[5], ids[6]]);
});

test("keepRuns in m3.config.json is checked", async () => {
  writeFileSync(join(project, "m3.config.json"), JSON.stringify({ keepRuns: 0 }));
  const merged = await cli("merge-reports", shard("a", 1, 1));
  expect(merged.err).toMatch(/"keepRuns" must be 1 or more/);
});
