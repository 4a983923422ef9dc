// `npx jest-m3 merge-reports` on blobs that are JSON and say they are jest-m3 blobs but are
// not what a shard writes: a wrong type in any field (numbers that hold markup, statuses
// that are not statuses, a missing list). Each is refused before anything is merged: exit
// 2, the error code and the field's path, no stack, and nothing written (no run folder, no
// history entry), also when it fails after the run was put together (a foreign history).
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../dist/cli/main";
import { validBlob } from "./support/blobs";
import { REPO, removeTempDir } from "./support/user-project";

const CLI = join(REPO, "packages", "jest-m3", "bin", "jest-m3.js");
const IMG = "<img src=x onerror=alert(1)>";
const SCRIPT = '"><script>window.__pwned=1</script>';

let project: string;
beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "jest-m3-merge-validation-"));
});
afterEach(() => removeTempDir(project));

/** `blob` with the value at `path` (keys and indexes) replaced by `value`. */
function withField(
  blob: Record<string, unknown>,
  path: readonly (string | number)[],
  value: unknown,
): Record<string, unknown> {
  const copy = structuredClone(blob);
  let at: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path[path.length - 1]!] = value;
  return copy;
}

function writeShard(name: string, blob: unknown): string {
  const dir = join(project, "shards", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "blob.json"), JSON.stringify(blob));
  return join("shards", name);
}

/** The real command line, as a user runs it. */
function mergeReports(...args: string[]): { code: number | null; out: string; err: string } {
  const run = spawnSync(process.execPath, [CLI, "merge-reports", ...args], {
    cwd: project,
    encoding: "utf8",
    timeout: 30_000,
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

/**
 * The command line's own entry, in this process (the table below has many rows: a process
 * each would cost seconds). An error it did not turn into an exit code rejects here, so a
 * refusal that escapes as an exception fails the row as a stack would on the command line.
 */
async function mergeReportsHere(
  ...args: string[]
): Promise<{ code: number | null; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(["merge-reports", ...args], {
    cwd: project,
    out: (text) => (out += text),
    err: (text) => (err += text),
  });
  return { code, out, err };
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

const cases: ReadonlyArray<readonly [string, readonly (string | number)[], unknown]> = [
  ["sessions[0].outsideTurns", ["sessions", 0, "outsideTurns"], IMG],
  ["sessions[0].turns[0].number", ["sessions", 0, "turns", 0, "number"], SCRIPT],
  ["sessions[0].turns[0].number", ["sessions", 0, "turns", 0, "number"], 1.5],
  ["sessions[0].turns[0].durationMs", ["sessions", 0, "turns", 0, "durationMs"], IMG],
  [
    "sessions[0].turns[0].toolCalls[0].latencyMs",
    ["sessions", 0, "turns", 0, "toolCalls", 0, "latencyMs"],
    SCRIPT,
  ],
  [
    "sessions[0].turns[0].toolCalls[0].offsetMs",
    ["sessions", 0, "turns", 0, "toolCalls", 0, "offsetMs"],
    IMG,
  ],
  [
    "sessions[0].turns[0].toolCalls[0].status",
    ["sessions", 0, "turns", 0, "toolCalls", 0, "status"],
    IMG,
  ],
  [
    "sessions[0].turns[0].toolCalls[0].evidence",
    ["sessions", 0, "turns", 0, "toolCalls", 0, "evidence"],
    SCRIPT,
  ],
  [
    "sessions[0].turns[0].toolCalls[0].arguments",
    ["sessions", 0, "turns", 0, "toolCalls", 0, "arguments"],
    { html: IMG },
  ],
  [
    "sessions[0].turns[0].toolCalls[0].messages[0].direction",
    ["sessions", 0, "turns", 0, "toolCalls", 0, "messages", 0, "direction"],
    IMG,
  ],
  [
    "sessions[0].turns[0].toolCalls[0].messages[0].afterMs",
    ["sessions", 0, "turns", 0, "toolCalls", 0, "messages", 0, "afterMs"],
    SCRIPT,
  ],
  ["sessions[0].turns[0].outcome", ["sessions", 0, "turns", 0, "outcome"], IMG],
  ["sessions[0].turns[0].toolCalls", ["sessions", 0, "turns", 0, "toolCalls"], null],
  ["sessions[0].outcome", ["sessions", 0, "outcome"], SCRIPT],
  ["sessions[0].durationMs", ["sessions", 0, "durationMs"], IMG],
  ["sessions[0].trial", ["sessions", 0, "trial"], SCRIPT],
  ["sessions[0].turns", ["sessions", 0, "turns"], IMG],
  ["sessions[0].testName", ["sessions", 0, "testName"], 7],
  ["trials[0].passed", ["trials", 0, "passed"], IMG],
  ["trials[0].trials", ["trials", 0, "trials"], SCRIPT],
  ["trials[0].interval[0]", ["trials", 0, "interval", 0], IMG],
  ["trials[0].passed", ["trials", 0, "passed"], 2],
  ["files[0].testResults[0].status", ["files", 0, "testResults", 0, "status"], SCRIPT],
  ["files[0].testResults[0].duration", ["files", 0, "testResults", 0, "duration"], IMG],
  [
    "files[0].testResults[0].failureMessages",
    ["files", 0, "testResults", 0, "failureMessages"],
    IMG,
  ],
  ["files", ["files"], {}],
  ["shard.index", ["shard", "index"], IMG],
  ["shard.index", ["shard", "index"], 3],
  ["startedAt", ["startedAt"], IMG],
  ["finishedAt", ["finishedAt"], SCRIPT],
  ["success", ["success"], "true"],
  ["run.provider", ["run", "provider"], 42],
];

test.each(cases)(
  "a blob whose %s is wrong is refused: exit 2, its code and path, no stack, nothing written",
  async (field, path, value) => {
    const good = writeShard("good", validBlob(1));
    const bad = writeShard("bad", withField(validBlob(2), path, value));
    const result = await mergeReportsHere(good, bad);
    expect({ code: result.code, err: result.err }).toEqual({
      code: 2,
      err: expect.stringContaining("[M3_BLOB_INVALID]"),
    });
    expect(result.err).toContain(
      `${join(project, bad, "blob.json")} is not a blob this jest-m3 can merge: ${field} `,
    );
    expect(result.err).not.toMatch(/^\s+at /m); // no stack frame
    expect(result.err.split("\n").filter((line) => line !== "")).toHaveLength(1);
    expect(result.out).toBe("");
    expect(existsSync(join(project, ".m3"))).toBe(false);
  },
);

test("through the real command line too: exit 2, the code and the path, no stack", () => {
  const bad = writeShard("bad", withField(validBlob(1), ["sessions", 0, "outsideTurns"], IMG));
  const result = mergeReports(bad);
  expect(result.code).toBe(2);
  expect(result.err).toBe(
    `jest-m3 merge-reports: ${join(project, bad, "blob.json")} is not a blob this jest-m3 can merge: sessions[0].outsideTurns must be a number, got ${JSON.stringify(IMG)}. Merge the run folders the shards wrote, unchanged. [M3_BLOB_INVALID] Nothing was merged.\n`,
  );
  expect(result.out).toBe("");
  expect(existsSync(join(project, ".m3"))).toBe(false);
});

test("what is not an object at all is not a blob", () => {
  for (const blob of [null, [], "jest-m3-blob", 3]) {
    const result = mergeReports(writeShard("odd", blob));
    expect({ blob, code: result.code }).toEqual({ blob, code: 2 });
    expect(result.err).toMatch(/is not a jest-m3 blob .*\[M3_BLOB_INVALID\]/);
    expect(result.err).not.toMatch(/^\s+at /m);
  }
  expect(existsSync(join(project, ".m3"))).toBe(false);
});

test("a merge that fails after the run was put together leaves no run folder behind", () => {
  // A history that is not jest-m3's: the merge refuses to record into it, and writes nothing.
  mkdirSync(join(project, ".m3"));
  const foreign = join(project, ".m3", "history.sqlite");
  writeFileSync(foreign, "someone else's file ".repeat(20));
  const result = mergeReports(writeShard("a", validBlob(1)), writeShard("b", validBlob(2)));
  expect(result.code).toBe(2);
  expect(result.err).toMatch(/history\.sqlite is not a SQLite database.*\[M3_[A-Z_]+\]/);
  expect(result.err).not.toMatch(/^\s+at /m);
  expect(filesUnder(join(project, ".m3"))).toEqual(["history.sqlite"]);
  expect(readFileSync(foreign, "utf8")).toBe("someone else's file ".repeat(20));

  // The same shards merge once the history is out of the way (so the blobs above were fine).
  const merged = mergeReports(
    writeShard("a", validBlob(1)),
    writeShard("b", validBlob(2)),
    "--no-history",
  );
  expect(merged.code).toBe(0);
  const runs = readdirSync(join(project, ".m3", "runs"));
  expect(runs).toHaveLength(1);
  expect(filesUnder(join(project, ".m3", "runs", runs[0]!))).toEqual([
    "blob.json",
    "report.html",
    "report.json",
  ]);
});

test("a results folder that cannot be written: exit 2 in one line with Node's code, nothing written", () => {
  writeFileSync(join(project, "not-a-folder"), "a file where the results folder should be");
  const result = mergeReports(
    writeShard("a", validBlob(1)),
    writeShard("b", validBlob(2)),
    "--results",
    join("not-a-folder", "results"),
  );
  expect(result.code).toBe(2);
  expect(result.err).toMatch(/^jest-m3 merge-reports: .*\[ENOTDIR\] Nothing was merged\.\n$/);
  expect(result.out).toBe("");
  expect(existsSync(join(project, ".m3"))).toBe(false);
});
