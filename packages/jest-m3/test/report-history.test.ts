// The run history on a real SQLite engine (sql.js): migrations from an older schema, damaged,
// foreign and newer files refused without touching them, concurrent writers in separate
// processes, and locks left by killed runs.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { HistoryLocked, withLock } from "../dist/store/lock";
import {
  HistoryStoreError,
  readHistory,
  schemaVersionOf,
  updateHistory,
  writeEmptyHistory,
} from "../dist/store/history";
import { queryRows, sqlEngine } from "../dist/store/engine";
import { recordRunInStore } from "../dist/store/record";
import { SCHEMA_VERSION } from "../dist/store/schema";
import { craftedRun } from "./support/crafted-run";
import { useTempFolder } from "@jest-m3/test-support";

const dir = useTempFolder("jest-m3-history-", { each: true });

const RECORD = join(__dirname, "..", "dist", "store", "record.js");
const BUILD = join(__dirname, "..", "dist", "report", "build.js");

async function runIds(path: string): Promise<string[]> {
  const db = await readHistory(path);
  try {
    return queryRows(db, "SELECT id FROM runs ORDER BY seq").map((row) => String(row.id));
  } finally {
    db.close();
  }
}

test("a store of schema 1 is migrated to the current schema, its runs kept and the old file backed up", async () => {
  const path = join(dir(), "history.sqlite");
  await writeEmptyHistory(path, 1);
  // A run as jest-m3 with schema 1 wrote it.
  const engine = await sqlEngine();
  const old = new engine.Database(readFileSync(path));
  old.run(
    "INSERT INTO runs (id, seq, started_at, finished_at, success, provider, tests, passed, failed, skipped, sessions, calls) VALUES ('old-run', 1, NULL, '2026-01-01T00:00:00.000Z', 1, NULL, 1, 1, 0, 0, 1, 1)",
  );
  old.run(
    "INSERT INTO sessions (run_id, execution_id, test_id, harness, model, version, outcome, duration_ms) VALUES ('old-run', 'e1', 't1', 'codex', 'gpt', '1.0', 'completed', 10)",
  );
  writeFileSync(path, old.export());
  old.close();

  const report = craftedRun("new-run", [
    {
      name: "quotes",
      verdict: "passed",
      sessions: [
        { calls: [{ server: "shipping", tool: "quote" }], catalog: { shipping: { quote: "h1" } } },
      ],
    },
  ]);
  await recordRunInStore(path, report, null);

  expect(existsSync(`${path}.v1.bak`)).toBe(true);
  expect(await runIds(path)).toEqual(["old-run", "new-run"]);
  const db = await readHistory(path);
  try {
    expect(schemaVersionOf(db)).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(2);
    // The old session got the columns of schema 2, empty; the new one is complete.
    expect(
      queryRows(
        db,
        "SELECT execution_id, provider_name, provider_dialect FROM sessions ORDER BY run_id",
      ),
    ).toEqual([
      {
        execution_id: expect.stringMatching(/^exec-/),
        provider_name: "scripted",
        provider_dialect: "responses",
      },
      { execution_id: "e1", provider_name: null, provider_dialect: null },
    ]);
    expect(queryRows(db, "SELECT server, tool, schema_hash FROM catalogs")).toEqual([
      { server: "shipping", tool: "quote", schema_hash: "h1" },
    ]);
    expect(queryRows(db, "SELECT run, passed, calls FROM trials")).toEqual([
      { run: 1, passed: 1, calls: 1 },
    ]);
  } finally {
    db.close();
  }
});

test.each([
  [
    "random bytes",
    () => Buffer.from("this is not a database at all, just text ".repeat(10)),
    "M3_STORE_CORRUPT",
  ],
  ["a damaged SQLite file (pages overwritten)", "truncated", "M3_STORE_CORRUPT"],
  ["another application's SQLite database", "foreign", "M3_STORE_FOREIGN"],
  ["a history of a newer jest-m3", "newer", "M3_STORE_TOO_NEW"],
] as const)("%s is a clear error and is left untouched", async (_what, kind, code) => {
  const path = join(dir(), "history.sqlite");
  const engine = await sqlEngine();
  if (typeof kind === "function") {
    writeFileSync(path, kind());
  } else if (kind === "foreign") {
    const db = new engine.Database();
    db.run("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)");
    db.run("INSERT INTO users (name) VALUES ('ada')");
    writeFileSync(path, db.export());
    db.close();
  } else {
    await recordRunInStore(path, craftedRun("r1", [{ name: "t", verdict: "passed" }]), null);
    if (kind === "newer") {
      const db = new engine.Database(readFileSync(path));
      db.exec("PRAGMA user_version = 99");
      writeFileSync(path, db.export());
      db.close();
    } else {
      const bytes = readFileSync(path);
      // Keep the header, damage every page after the first.
      writeFileSync(
        path,
        Buffer.concat([bytes.subarray(0, 4096), Buffer.alloc(bytes.length - 4096, 0xee)]),
      );
    }
  }
  const before = readFileSync(path);
  const write = recordRunInStore(path, craftedRun("r2", [{ name: "t", verdict: "passed" }]), null);
  await expect(write).rejects.toThrow(HistoryStoreError);
  await expect(write).rejects.toMatchObject({ code });
  await expect(write).rejects.toThrow(/left untouched/);
  await expect(readHistory(path)).rejects.toMatchObject({ code });
  expect(readFileSync(path).equals(before)).toBe(true);
});

test("a missing history is M3_STORE_NOT_FOUND for readers", async () => {
  await expect(readHistory(join(dir(), "none.sqlite"))).rejects.toMatchObject({
    code: "M3_STORE_NOT_FOUND",
    message: expect.stringContaining("npx jest"),
  });
});

test("six processes writing at once: every run recorded, the file intact", async () => {
  const path = join(dir(), "history.sqlite");
  const script = `
    const { buildRunReport } = require(${JSON.stringify(BUILD)});
    const { recordRunInStore } = require(${JSON.stringify(RECORD)});
    (async () => {
      for (let i = 0; i < 4; i++) {
        const runId = "w" + process.argv[1] + "-" + i;
        const report = buildRunReport({ rootDir: "/p", run: { runId }, files: [{ testFilePath: "/p/a.test.ts",
          testResults: [{ fullName: "t" + i, title: "t" + i, status: "passed" }] }], sessions: [], success: true,
          startedAt: Date.now(), secrets: [] });
        await recordRunInStore(${JSON.stringify(path)}, report, null);
      }
    })().catch((error) => { console.error(error); process.exit(1); });`;
  const writers = Array.from(
    { length: 6 },
    (_, index) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, ["-e", script, String(index)], {
          stdio: ["ignore", "ignore", "inherit"],
        });
        child.on("close", resolve);
      }),
  );
  expect(await Promise.all(writers)).toEqual([0, 0, 0, 0, 0, 0]);
  const ids = await runIds(path);
  expect(ids).toHaveLength(24);
  expect(new Set(ids).size).toBe(24);
  const db = await readHistory(path);
  try {
    expect(db.exec("PRAGMA integrity_check")[0]?.values).toEqual([["ok"]]);
    expect(queryRows(db, "SELECT COUNT(*) AS n FROM tests")).toEqual([{ n: 24 }]);
  } finally {
    db.close();
  }
  expect(existsSync(`${path}.lock`)).toBe(false);
});

test("a lock left by a killed run is taken over; a live one makes the writer wait, then fail clearly", async () => {
  const path = join(dir(), "history.sqlite");
  // A process that has exited: its lock is stale.
  const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  writeFileSync(
    `${path}.lock`,
    JSON.stringify({
      pid: Number(gone.stdout),
      startTicks: "1",
      host: hostname(),
      at: new Date().toISOString(),
    }),
  );
  await recordRunInStore(path, craftedRun("after-crash", [{ name: "t", verdict: "passed" }]), null);
  expect(await runIds(path)).toEqual(["after-crash"]);

  // This process holds the lock: another writer waits and then says who holds it.
  await withLock(`${path}.lock`, async () => {
    const blocked = updateHistory(path, () => undefined, { lockWaitMs: 300 });
    await expect(blocked).rejects.toThrow(HistoryLocked);
    await expect(blocked).rejects.toThrow(new RegExp(`locked by process ${process.pid}`));
  });
  expect(existsSync(`${path}.lock`)).toBe(false);
});
