/**
 * The run history: one SQLite file in the results folder (`<resultsDir>/history.sqlite`)
 * holding every run's tests, per-agent statistics, sessions, turns, calls and the tool
 * catalog each server listed. Readers see a consistent file (writers replace it atomically);
 * writers take turns under a lock. A file that is not SQLite, is damaged, belongs to another
 * application or to a newer jest-m3 is an error that says so, and is never overwritten.
 */
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from "node:fs";
import { M3Error } from "@jest-m3/core/lean";
import { queryRows, sqlEngine, type SqlDatabase } from "./engine.js";
import { withLock } from "./lock.js";
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from "./schema.js";

/** The history's file name in the results folder. */
export const HISTORY_FILE = "history.sqlite";

/**
 * The history cannot be used. `code` says why: `M3_STORE_NOT_FOUND` (no history yet),
 * `M3_STORE_CORRUPT` (not a SQLite file, or a damaged one), `M3_STORE_FOREIGN` (a SQLite
 * database of something else), `M3_STORE_TOO_NEW` (written by a newer jest-m3).
 */
export class HistoryStoreError extends M3Error {}

const SQLITE_HEADER = "SQLite format 3\u0000";

function pragmaNumber(db: SqlDatabase, name: string): number {
  const value = db.exec(`PRAGMA ${name}`)[0]?.values[0]?.[0];
  return typeof value === "number" ? value : Number(value ?? 0);
}

/** The schema version of an open history. */
export function schemaVersionOf(db: SqlDatabase): number {
  return pragmaNumber(db, "user_version");
}

/**
 * Takes `db` from its version to `target` (default: the latest), each migration in a
 * transaction: a failed migration leaves the database as it was.
 */
export function migrate(db: SqlDatabase, target = SCHEMA_VERSION): void {
  for (let version = schemaVersionOf(db); version < target; version += 1) {
    db.run("BEGIN");
    try {
      db.exec(MIGRATIONS[version]!);
      db.exec(`PRAGMA user_version = ${version + 1}`);
      db.run("COMMIT");
    } catch (error) {
      db.run("ROLLBACK");
      throw new HistoryStoreError(
        `Migrating the run history to schema ${version + 1} failed: ${(error as Error).message}`,
        { code: "M3_STORE_CORRUPT", cause: error },
      );
    }
  }
}

/** A new, empty history at `version` (tests pass an older one to test migrations). */
async function emptyHistory(version = SCHEMA_VERSION): Promise<SqlDatabase> {
  const engine = await sqlEngine();
  const db = new engine.Database();
  db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
  migrate(db, version);
  return db;
}

/**
 * Opens the history file at `path`, checked: SQLite, intact, jest-m3's, not newer than
 * this jest-m3. Missing or empty files give a new history when `create` is set.
 */
async function loadHistory(path: string, create: boolean): Promise<SqlDatabase> {
  if (!existsSync(path)) {
    if (create) return emptyHistory();
    throw new HistoryStoreError(
      `No run history at ${path}. Every run with preset "jest-m3" records one; run your tests first (npx jest).`,
      { code: "M3_STORE_NOT_FOUND" },
    );
  }
  const bytes = readFileSync(path);
  if (bytes.length === 0 && create) return emptyHistory();
  const fix = `Move it away (jest-m3 then starts a new history there) or set "resultsDir" in m3.config.json to another folder.`;
  if (bytes.length < 100 || bytes.subarray(0, 16).toString("latin1") !== SQLITE_HEADER) {
    throw new HistoryStoreError(
      `${path} is not a SQLite database (${bytes.length} bytes, starting ${JSON.stringify(bytes.subarray(0, 16).toString("latin1"))}): it is damaged or is not jest-m3's run history. It was left untouched. ${fix}`,
      { code: "M3_STORE_CORRUPT" },
    );
  }
  const engine = await sqlEngine();
  let db: SqlDatabase | undefined;
  try {
    db = new engine.Database(bytes);
    const check = db.exec("PRAGMA quick_check")[0]?.values.map((row) => String(row[0])) ?? [];
    if (check.join() !== "ok") throw new Error(check.slice(0, 3).join("; "));
  } catch (error) {
    db?.close();
    throw new HistoryStoreError(
      `The run history ${path} is damaged (SQLite says: ${(error as Error).message}). It was left untouched. ${fix}`,
      { code: "M3_STORE_CORRUPT", cause: error },
    );
  }
  const application = pragmaNumber(db, "application_id");
  if (application !== APPLICATION_ID) {
    const tables = queryRows(db, "SELECT name FROM sqlite_master WHERE type = 'table'").map((row) =>
      String(row.name),
    );
    if (application === 0 && tables.length === 0) {
      db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
    } else {
      db.close();
      throw new HistoryStoreError(
        `${path} is a SQLite database of another application (application_id ${application}, tables: ${tables.slice(0, 8).join(", ") || "none"}), not jest-m3's run history. It was left untouched. ${fix}`,
        { code: "M3_STORE_FOREIGN" },
      );
    }
  }
  const version = schemaVersionOf(db);
  if (version > SCHEMA_VERSION) {
    db.close();
    throw new HistoryStoreError(
      `The run history ${path} has schema ${version}, written by a newer jest-m3; this one knows schema ${SCHEMA_VERSION}. Update jest-m3 (the file was left untouched).`,
      { code: "M3_STORE_TOO_NEW" },
    );
  }
  return db;
}

/** Writes `bytes` to `path` atomically: a temporary file, flushed, renamed over it. */
function replaceFile(path: string, bytes: Uint8Array): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, "w");
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
}

/**
 * Changes the history at `path` under its lock: opens (or creates) it, migrates it to the
 * current schema (keeping a copy of the old file beside it, `history.sqlite.v<n>.bak`), runs
 * `change` in a transaction, and replaces the file with the result.
 */
export async function updateHistory<T>(
  path: string,
  change: (db: SqlDatabase) => T,
  options: { lockWaitMs?: number } = {},
): Promise<T> {
  return withLock(
    `${path}.lock`,
    async () => {
      const db = await loadHistory(path, true);
      try {
        const version = schemaVersionOf(db);
        if (existsSync(path) && version > 0 && version < SCHEMA_VERSION) {
          copyFileSync(path, `${path}.v${version}.bak`);
        }
        migrate(db);
        db.run("BEGIN");
        let result: T;
        try {
          result = change(db);
          db.run("COMMIT");
        } catch (error) {
          db.run("ROLLBACK");
          throw error;
        }
        replaceFile(path, db.export());
        return result;
      } finally {
        db.close();
      }
    },
    options.lockWaitMs,
  );
}

/**
 * Opens the history at `path` for reading (an older schema is migrated in memory; the file
 * is not changed). Close it when done.
 *
 * @throws HistoryStoreError when there is none, or it is damaged, foreign or too new.
 */
export async function readHistory(path: string): Promise<SqlDatabase> {
  const db = await loadHistory(path, false);
  migrate(db);
  return db;
}

/**
 * Writes an empty history of schema `version` at `path`: for tests of migrations, which
 * need a file as an older jest-m3 left it.
 */
export async function writeEmptyHistory(path: string, version: number): Promise<void> {
  const db = await emptyHistory(version);
  try {
    replaceFile(path, db.export());
  } finally {
    db.close();
  }
}
