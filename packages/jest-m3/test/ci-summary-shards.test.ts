// The job summaries of a sharded run in GitHub Actions, as docs/ci.md's workflow makes them:
// two real shards (jest --shard=i/2, the test harness making real MCP calls) each append
// their grid and no diff; `jest-m3 merge-reports` appends the merged run's grid of both
// shards' tests and, on the second round (a test broken), its regressions against the first.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { markdownCell } from "../dist/report/ci-summary";
import {
  makeUserProject,
  removeTempDir,
  runJest,
  CLI,
  oneTurnTestSource,
  TEST_FILE_IMPORTS,
} from "./support/user-project";

const testFile = (name: string, zone: string): string =>
  TEST_FILE_IMPORTS +
  oneTurnTestSource(
    JSON.stringify(name),
    JSON.stringify('call shipping:shipping_quote {"weight_kg":2,"zone":"local"}\nreply Quoted.'),
    `const zone = process.env.M3_BREAK === "1" ? ${JSON.stringify(zone)} : "local";
  expect(session.result).toHaveToolCall("shipping_quote", { turn, arguments: { weight_kg: 2, zone } });`,
  );

let project: string | undefined;
const rounds: Array<{ shards: string[]; merged: string; mergeStatus: number | null }> = [];

const runFolders = (): string[] =>
  existsSync(join(project!, ".m3", "runs"))
    ? readdirSync(join(project!, ".m3", "runs"))
        .filter((id) => !id.startsWith("."))
        .sort()
    : [];

beforeAll(() => {
  project = makeUserProject({
    "a.test.ts": testFile("quotes from shard a", "local"),
    "b.test.ts": testFile("quotes from shard b", "regional"),
  });
  for (const broken of [false, true]) {
    const shards: string[] = [];
    const folders: string[] = [];
    for (const shard of [1, 2]) {
      const summary = join(project, `summary-${broken ? 2 : 1}-shard-${shard}.md`);
      const before = new Set(runFolders());
      runJest(project, {
        args: [`--shard=${shard}/2`],
        env: {
          GITHUB_STEP_SUMMARY: summary,
          ...(broken ? { M3_BREAK: "1" } : {}),
        },
        timeoutMs: 150_000,
      });
      folders.push(...runFolders().filter((id) => !before.has(id)));
      shards.push(readFileSync(summary, "utf8"));
    }
    const mergedSummary = join(project, `summary-${broken ? 2 : 1}-merged.md`);
    const merge = spawnSync(
      process.execPath,
      [CLI, "merge-reports", ...folders.map((id) => join(".m3", "runs", id))],
      {
        cwd: project,
        encoding: "utf8",
        env: { ...process.env, GITHUB_STEP_SUMMARY: mergedSummary },
      },
    );
    rounds.push({
      shards,
      merged: readFileSync(mergedSummary, "utf8"),
      mergeStatus: merge.status,
    });
  }
}, 600_000);

afterAll(() => {
  if (!process.env.M3_KEEP) removeTempDir(project);
});

test("each shard's summary has its own tests and no diff; the merge's has both shards' tests", () => {
  const [first] = rounds;
  expect(first!.mergeStatus).toBe(0);
  const shardTests = first!.shards.map((summary) =>
    ["quotes from shard a", "quotes from shard b"].filter((name) => summary.includes(name)),
  );
  expect(shardTests.flat().sort()).toEqual(["quotes from shard a", "quotes from shard b"]);
  for (const [index, summary] of first!.shards.entries()) {
    expect(shardTests[index]).toHaveLength(1);
    expect(summary).toContain(
      `Shard ${index + 1}/2: the regressions are in the summary of its merge`,
    );
  }
  expect(first!.merged).toContain("| ✅ quotes from shard a | ✅ 1/1 |");
  expect(first!.merged).toContain("| ✅ quotes from shard b | ✅ 1/1 |");
  expect(first!.merged).toContain("The history holds no run before this one.");
});

test("the second merge's summary names the regression against the first merged run", () => {
  const [first, second] = rounds;
  expect(second!.mergeStatus).toBe(1);
  const firstId = /^## jest-m3 run (\S+):/m.exec(first!.merged)![1]!;
  expect(second!.merged).toContain(`### Regressions against the previous run ${firstId} (green)`);
  expect(second!.merged).toContain("| ❌ quotes from shard b | ❌ 0/1 |");
  expect(second!.merged).toContain(
    `- ${markdownCell("fails its requirement: quotes from shard b")}`,
  );
  expect(second!.merged).not.toContain("fails its requirement: quotes from shard a");
});
