/**
 * The SQLite engine of the run history: sql.js, SQLite compiled to WebAssembly. It installs
 * in seconds with no native build (better-sqlite3 builds SQLite from source with node-gyp
 * where no prebuilt binary can be downloaded: minutes; see docs/reports.md). sql.js keeps
 * the database in memory: the history reads the file, changes it, and writes it back whole
 * under a lock (see `lock.ts`).
 */
import { createRequire } from "node:module";

/** A value of a column. */
export type SqlValue = number | string | Uint8Array | null;

/** A prepared statement (the part of sql.js the history uses). */
export interface SqlStatement {
  bind(values?: readonly SqlValue[]): boolean;
  step(): boolean;
  getAsObject(): Record<string, SqlValue>;
  run(values?: readonly SqlValue[]): void;
  reset(): void;
  free(): boolean;
}

/** An open database (the part of sql.js the history uses). */
export interface SqlDatabase {
  run(sql: string, values?: readonly SqlValue[]): SqlDatabase;
  exec(
    sql: string,
    values?: readonly SqlValue[],
  ): Array<{ columns: string[]; values: SqlValue[][] }>;
  prepare(sql: string): SqlStatement;
  export(): Uint8Array;
  close(): void;
}

/** The engine: makes databases, empty or from a file's bytes. */
export interface SqlEngine {
  readonly Database: new (data?: Uint8Array) => SqlDatabase;
}

let loading: Promise<SqlEngine> | undefined;

/** The SQLite engine, loaded once per process. */
export function sqlEngine(): Promise<SqlEngine> {
  const load = createRequire(__filename)("sql.js") as () => Promise<SqlEngine>;
  loading ??= load();
  return loading;
}

/** The rows of a query as objects. */
export function queryRows(
  db: SqlDatabase,
  sql: string,
  values: readonly SqlValue[] = [],
): Array<Record<string, SqlValue>> {
  const statement = db.prepare(sql);
  try {
    statement.bind(values);
    const rows: Array<Record<string, SqlValue>> = [];
    while (statement.step()) rows.push(statement.getAsObject());
    return rows;
  } finally {
    statement.free();
  }
}
