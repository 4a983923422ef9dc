/**
 * The history's schema, as migrations: migration `n` takes a store at version `n - 1` to
 * version `n` (PRAGMA user_version). A store is never changed except by these, in order,
 * each in one transaction.
 */

/** The history's application id (PRAGMA application_id): "JM3H". Tells our file from others. */
export const APPLICATION_ID = 0x4a4d3348;

/** The migrations, in order; their count is the current schema version. */
export const MIGRATIONS: readonly string[] = [
  // 1: runs, tests, sessions, turns, calls.
  `
  CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL UNIQUE,
    started_at TEXT,
    finished_at TEXT NOT NULL,
    success INTEGER NOT NULL,
    provider TEXT,
    tests INTEGER NOT NULL,
    passed INTEGER NOT NULL,
    failed INTEGER NOT NULL,
    skipped INTEGER NOT NULL,
    sessions INTEGER NOT NULL,
    calls INTEGER NOT NULL
  );
  CREATE TABLE tests (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    test_id TEXT NOT NULL,
    file TEXT NOT NULL,
    full_name TEXT NOT NULL,
    verdict TEXT NOT NULL,
    duration_ms REAL,
    PRIMARY KEY (run_id, test_id)
  );
  CREATE TABLE sessions (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    execution_id TEXT NOT NULL,
    test_id TEXT NOT NULL,
    harness TEXT NOT NULL,
    model TEXT NOT NULL,
    version TEXT,
    outcome TEXT,
    duration_ms REAL,
    PRIMARY KEY (run_id, execution_id)
  );
  CREATE TABLE turns (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    execution_id TEXT NOT NULL,
    number INTEGER NOT NULL,
    outcome TEXT,
    duration_ms REAL,
    PRIMARY KEY (run_id, execution_id, number)
  );
  CREATE TABLE calls (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    execution_id TEXT NOT NULL,
    turn INTEGER NOT NULL,
    position INTEGER NOT NULL,
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    status TEXT NOT NULL,
    evidence TEXT NOT NULL,
    latency_ms REAL,
    PRIMARY KEY (run_id, execution_id, turn, position)
  );
  CREATE INDEX calls_by_tool ON calls (run_id, server, tool);
  `,
  // 2: per-session providers, trial statistics per test and agent, tool catalogs per server.
  `
  ALTER TABLE sessions ADD COLUMN provider_name TEXT;
  ALTER TABLE sessions ADD COLUMN provider_base_url TEXT;
  ALTER TABLE sessions ADD COLUMN provider_dialect TEXT;
  ALTER TABLE sessions ADD COLUMN trial INTEGER;
  CREATE TABLE trials (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    test_id TEXT NOT NULL,
    harness TEXT NOT NULL,
    model TEXT NOT NULL,
    version TEXT,
    run INTEGER NOT NULL,
    passed INTEGER NOT NULL,
    rate REAL NOT NULL,
    ci_low REAL NOT NULL,
    ci_high REAL NOT NULL,
    sessions INTEGER NOT NULL,
    turns INTEGER NOT NULL,
    turn_p50_ms REAL,
    turn_p95_ms REAL,
    calls INTEGER NOT NULL,
    calls_per_session_p50 REAL NOT NULL,
    calls_per_session_max INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX trials_key ON trials (run_id, test_id, harness, model, IFNULL(version, ''));
  CREATE TABLE catalogs (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    schema_hash TEXT NOT NULL,
    description TEXT,
    PRIMARY KEY (run_id, server, tool)
  );
  `,
  // 3: judge verdicts (scores per test and agent), changed workspace paths, model tokens.
  `
  CREATE TABLE verdicts (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    test_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    execution_id TEXT,
    turn INTEGER,
    trial INTEGER,
    harness TEXT,
    model TEXT,
    criteria TEXT NOT NULL,
    judge_model TEXT,
    score REAL,
    pass INTEGER,
    passed INTEGER,
    threshold REAL,
    latency_ms REAL,
    error TEXT,
    PRIMARY KEY (run_id, test_id, position)
  );
  CREATE INDEX verdicts_by_test ON verdicts (run_id, test_id, harness, model);
  CREATE TABLE changed_paths (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    execution_id TEXT NOT NULL,
    path TEXT NOT NULL,
    change TEXT NOT NULL,
    from_path TEXT,
    binary INTEGER NOT NULL,
    PRIMARY KEY (run_id, execution_id, path)
  );
  ALTER TABLE sessions ADD COLUMN input_tokens INTEGER;
  ALTER TABLE sessions ADD COLUMN output_tokens INTEGER;
  ALTER TABLE sessions ADD COLUMN model_requests INTEGER;
  ALTER TABLE sessions ADD COLUMN catalog_bytes INTEGER;
  ALTER TABLE turns ADD COLUMN input_tokens INTEGER;
  ALTER TABLE turns ADD COLUMN output_tokens INTEGER;
  `,
  // 4: each run's test selection and shards (a partial merge is marked), and the context
  // cost of each server's tool catalog per agent.
  `
  ALTER TABLE runs ADD COLUMN selection TEXT NOT NULL DEFAULT '';
  ALTER TABLE runs ADD COLUMN selection_label TEXT;
  ALTER TABLE runs ADD COLUMN shard_count INTEGER;
  ALTER TABLE runs ADD COLUMN missing_shards TEXT;
  ALTER TABLE runs ADD COLUMN partial INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE catalog_costs (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    server TEXT NOT NULL,
    harness TEXT NOT NULL,
    model TEXT NOT NULL,
    tools INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    estimated_tokens INTEGER NOT NULL,
    sessions INTEGER NOT NULL,
    PRIMARY KEY (run_id, server, harness, model)
  );
  `,
];

/** The schema version this jest-m3 writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;
