// merge-reports' refusals (no blob, a foreign or cut blob, the same shard twice, shards of
// different splits) and a missing shard; the reporter with a history it must not touch.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { RunBlob } from "../dist/report/blob";
import type Reporter from "../dist/main/reporter";
import { runCli } from "./support/cli";
import { sessionRecord } from "./support/blobs";
import { removeTempDir } from "./support/user-project";

let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "jest-m3-merge-"));
});
afterEach(() => removeTempDir(project));

const cli = (...argv: string[]) => runCli(project, ...argv);

function shard(name: string, index: number, count: number, verdict = "passed"): string {
  const blob: RunBlob = {
    kind: "jest-m3-blob",
    schema: 1,
    runId: `run-${name}`,
    rootDir: `/ci/${name}`,
    shard: { index, count },
    run: { runId: `run-${name}` },
    files: [
      {
        testFilePath: `/ci/${name}/t${index}.test.ts`,
        testResults: [{ fullName: `t${index}`, title: `t${index}`, status: verdict }],
      },
    ],
    sessions: [],
    trials: [],
    success: verdict === "passed",
    startedAt: 1_000 * index,
    finishedAt: 5_000 * index,
  };
  const dir = join(project, "shards", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "blob.json"), JSON.stringify(blob));
  return join("shards", name);
}

test("shards from different checkouts merge onto one root; a missing shard is refused, or with --allow-partial fails the merged run", async () => {
  const one = shard("a", 1, 3);
  const two = shard("b", 2, 3);
  const refused = await cli("merge-reports", one, two);
  expect(refused.code).toBe(2);
  expect(refused.err).toContain("shard(s) 3 of 3 missing");
  expect(existsSync(join(project, ".m3"))).toBe(false);
  const merged = await cli("merge-reports", "--allow-partial", one, two);
  expect(merged.code).toBe(1);
  expect(merged.err).toContain(
    "shard(s) 3 of 3 missing; the counts above are of the merged shards only, and the merged run counts as failed",
  );
  const id = /into run (\S+):/.exec(merged.out)![1]!;
  const report = JSON.parse(readFileSync(join(project, ".m3", "runs", id, "report.json"), "utf8"));
  expect(report.success).toBe(false);
  expect(report.tests).toEqual({ total: 2, passed: 2, failed: 0 });
  // Both files are relative to one root, whichever checkout each shard ran in.
  const html = readFileSync(join(project, ".m3", "runs", id, "report.html"), "utf8");
  expect(html).toContain('"file":"t1.test.ts"');
  expect(html).toContain('"file":"t2.test.ts"');
  expect(existsSync(join(project, ".m3", "history.sqlite"))).toBe(true);
});

test("merge-reports refuses what it cannot merge, exit 2, nothing written", async () => {
  const one = shard("a", 1, 2);
  mkdirSync(join(project, "empty"));
  writeFileSync(join(project, "foreign.json"), JSON.stringify({ hello: "world" }));
  writeFileSync(join(project, "cut.json"), '{"kind":"jest-m3-blob","sch');
  const cases: Array<[string[], RegExp]> = [
    [[], /give the run folder of each shard/],
    [["empty"], /No blob at .*empty.blob\.json/],
    [["foreign.json"], /is not a jest-m3 blob/],
    [["cut.json"], /is not valid JSON .*Copy the run folder again/],
    [[one, one], /Shard 1 is given twice/],
    [[one, shard("c", 2, 3)], /split differently/],
    [["--bogus", one], /unknown option --bogus/],
  ];
  for (const [args, message] of cases) {
    const result = await cli("merge-reports", ...args);
    expect({ args, code: result.code }).toEqual({ args, code: 2 });
    expect(result.err).toMatch(message);
  }
  expect(existsSync(join(project, ".m3"))).toBe(false);
});

/**
 * The preset's reporter, loaded as Jest loads reporters (CommonJS, `export =`), over the run
 * folder `run`: one file's results, then the run's end. Returns what it wrote to stderr.
 */
async function report(
  run: string,
  testResults: { fullName: string; title: string; status: string; failureMessages: string[] }[],
): Promise<string> {
  const written: string[] = [];
  const previous = process.env.M3_RUN_DIR;
  process.env.M3_RUN_DIR = run;
  const write = jest
    .spyOn(process.stderr, "write")
    .mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  try {
    const M3Reporter = createRequire(__filename)("../dist/main/reporter.js") as typeof Reporter;
    const reporter = new M3Reporter({ rootDir: project });
    reporter.onTestResult(undefined, { testFilePath: join(project, "a.test.ts"), testResults });
    const failed = testResults.filter((result) => result.status === "failed").length;
    await reporter.onRunComplete(undefined, {
      numTotalTests: testResults.length,
      numPassedTests: testResults.length - failed,
      numFailedTests: failed,
      success: false,
    });
  } finally {
    write.mockRestore();
    if (previous === undefined) delete process.env.M3_RUN_DIR;
    else process.env.M3_RUN_DIR = previous;
  }
  return written.join("");
}

test("the reporter writes the report but leaves a foreign history untouched, saying the run was not recorded", async () => {
  const run = join(project, ".m3", "runs", "r1");
  mkdirSync(run, { recursive: true });
  const foreign = join(project, ".m3", "history.sqlite");
  writeFileSync(foreign, "someone else's file ".repeat(20));
  const before = readFileSync(foreign);
  const written = await report(run, [
    { fullName: "t", title: "t", status: "passed", failureMessages: [] },
  ]);
  expect(existsSync(join(run, "report.html"))).toBe(true);
  expect(JSON.parse(readFileSync(join(run, "report.json"), "utf8")).success).toBe(true);
  expect(written).toMatch(
    /the run was NOT recorded in the history: .*history\.sqlite is not a SQLite database/,
  );
  expect(readFileSync(foreign).equals(before)).toBe(true);
});

test("the end-of-run table shows the weakest 40 rows of a long run and says where the rest are", async () => {
  const run = join(project, ".m3", "runs", "r1");
  mkdirSync(join(run, "executions"), { recursive: true });
  const names = Array.from({ length: 45 }, (_, index) => `case ${String(index).padStart(2, "0")}`);
  const session = (testName: string, index: number) =>
    sessionRecord(
      {
        testPath: join(project, "a.test.ts"),
        testName,
        executionId: `e${index}`,
        sessionId: `s${index}`,
      },
      { durationMs: 40 + index },
    );
  writeFileSync(
    join(run, "executions", "1.jsonl"),
    names.map((name, index) => JSON.stringify(session(name, index))).join("\n") + "\n",
  );
  const written = await report(
    run,
    names.map((name) => ({
      fullName: name,
      title: name,
      status: name === "case 44" ? "failed" : "passed",
      failureMessages: name === "case 44" ? ["boom"] : [],
    })),
  );
  const table = /jest-m3: per test and agent\n([\s\S]*?)\njest-m3: report written/.exec(
    written,
  )![1]!;
  const rows = table.split("\n").filter((line) => /^ {2}\d+\/\d+ /.test(line));
  expect(rows).toHaveLength(40);
  expect(rows.some((row) => row.startsWith("  0/1 ") && row.endsWith("case 44"))).toBe(true);
  expect(table).toContain("… and 5 more row(s), all at 100%: report.json (stats) and report.html");
  // Every row is in report.json.
  expect(JSON.parse(readFileSync(join(run, "report.json"), "utf8")).stats).toHaveLength(45);
});
