/**
 * Records a run's report in the history: the run, its tests, per test and agent the trial
 * statistics, every session (with its provider), turn and call, and the tool catalog each
 * server listed.
 */
import { dirname, join } from "node:path";
import type { RunReport } from "../report/model.js";
import type { RunFile } from "../report/build.js";
import type { SqlDatabase, SqlValue } from "./engine.js";
import { HISTORY_FILE, updateHistory } from "./history.js";
import { describeSelection, selectionKey } from "../shared/run-selection.js";

/** The history of the results folder a run folder (`<resultsDir>/runs/<id>`) belongs to. */
export function historyPathOf(runDir: string): string {
  return join(dirname(dirname(runDir)), HISTORY_FILE);
}

function insert(db: SqlDatabase, table: string, row: Record<string, SqlValue>): void {
  const columns = Object.keys(row);
  db.run(
    `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
    Object.values(row),
  );
}

const TABLES = [
  "catalog_costs",
  "verdicts",
  "changed_paths",
  "catalogs",
  "trials",
  "calls",
  "turns",
  "sessions",
  "tests",
  "runs",
];

/** Writes `report` into an open history (replacing a run of the same id). */
export function insertRun(db: SqlDatabase, report: RunReport, run: RunFile | null): string {
  const runId = report.runId ?? run?.runId ?? `run-${Date.now()}`;
  for (const table of TABLES) {
    db.run(`DELETE FROM ${table} WHERE ${table === "runs" ? "id" : "run_id"} = ?`, [runId]);
  }
  const seq = Number(db.exec("SELECT IFNULL(MAX(seq), 0) + 1 FROM runs")[0]?.values[0]?.[0] ?? 1);
  insert(db, "runs", {
    id: runId,
    seq,
    started_at: report.startedAt,
    finished_at: report.finishedAt,
    success: report.success ? 1 : 0,
    provider: report.provider,
    tests: report.totals.tests,
    passed: report.totals.passed,
    failed: report.totals.failed,
    skipped: report.totals.skipped,
    sessions: report.totals.sessions,
    calls: report.totals.calls,
    selection: report.selection ? selectionKey(report.selection) : "",
    selection_label: report.selection ? describeSelection(report.selection) : null,
    shard_count: report.shards?.count ?? null,
    missing_shards: report.shards?.missing.length ? report.shards.missing.join(",") : null,
    partial: report.shards?.missing.length ? 1 : 0,
  });
  // Per server and agent, the largest cost a session of the run saw (they agree when the
  // catalog and the agent did not change).
  const costs = new Map<
    string,
    {
      server: string;
      harness: string;
      model: string;
      tools: number;
      bytes: number;
      tokens: number;
      sessions: number;
    }
  >();
  const catalogs = new Map<string, { hash: string; description: string | null }>();
  for (const test of report.tests) {
    insert(db, "tests", {
      run_id: runId,
      test_id: test.id,
      file: test.file,
      full_name: test.fullName,
      verdict: test.verdict,
      duration_ms: test.durationMs,
    });
    for (const stats of test.stats ?? []) {
      insert(db, "trials", {
        run_id: runId,
        test_id: test.id,
        harness: stats.agent.harness,
        model: stats.agent.model,
        version: stats.agent.version,
        run: stats.trials.run,
        passed: stats.trials.passed,
        rate: stats.trials.rate,
        ci_low: stats.trials.interval[0],
        ci_high: stats.trials.interval[1],
        sessions: stats.sessions,
        turns: stats.turns,
        turn_p50_ms: stats.turnLatencyMs?.p50 ?? null,
        turn_p95_ms: stats.turnLatencyMs?.p95 ?? null,
        calls: stats.toolCalls.total,
        calls_per_session_p50: stats.toolCalls.perSession.p50,
        calls_per_session_max: stats.toolCalls.perSession.max,
      });
    }
    for (const session of test.sessions) {
      insert(db, "sessions", {
        run_id: runId,
        execution_id: session.executionId,
        test_id: test.id,
        harness: session.harness ?? session.agent,
        model: session.model,
        version: session.version ?? null,
        outcome: session.outcome,
        duration_ms: session.durationMs ?? null,
        provider_name: session.provider?.name ?? null,
        provider_base_url: session.provider?.baseUrl ?? null,
        provider_dialect: session.provider?.dialect ?? null,
        trial: session.trial ?? null,
        input_tokens: session.usage?.inputTokens ?? null,
        output_tokens: session.usage?.outputTokens ?? null,
        model_requests: session.modelRequestCount ?? null,
        catalog_bytes: session.catalogCost?.bytes ?? null,
      });
      for (const change of session.workspace?.changes ?? []) {
        insert(db, "changed_paths", {
          run_id: runId,
          execution_id: session.executionId,
          path: change.path,
          change: change.change,
          from_path: change.from,
          binary: change.binary ? 1 : 0,
        });
      }
      for (const turn of session.turns) {
        insert(db, "turns", {
          run_id: runId,
          execution_id: session.executionId,
          number: turn.number,
          outcome: turn.outcome,
          duration_ms: turn.durationMs ?? null,
          input_tokens: turn.usage?.inputTokens ?? null,
          output_tokens: turn.usage?.outputTokens ?? null,
        });
        turn.toolCalls.forEach((call, position) =>
          insert(db, "calls", {
            run_id: runId,
            execution_id: session.executionId,
            turn: turn.number,
            position,
            server: call.server,
            tool: call.tool,
            arguments: call.arguments,
            status: call.status,
            evidence: call.evidence,
            latency_ms: call.latencyMs ?? null,
          }),
        );
      }
      for (const server of session.catalogCost?.servers ?? []) {
        if (server.requestId === null) continue; // never offered to the model: no cost seen
        const harness = session.harness ?? session.agent;
        const key = [server.server, harness, session.model].join("\u0000");
        const was = costs.get(key);
        costs.set(key, {
          server: server.server,
          harness,
          model: session.model,
          tools: Math.max(was?.tools ?? 0, server.tools.length),
          bytes: Math.max(was?.bytes ?? 0, server.bytes),
          tokens: Math.max(was?.tokens ?? 0, server.estimatedTokens),
          sessions: (was?.sessions ?? 0) + 1,
        });
      }
      for (const catalog of session.catalogs ?? []) {
        for (const tool of catalog.tools) {
          catalogs.set(`${catalog.server}\u0000${tool.name}`, {
            hash: tool.schemaHash,
            description: tool.description ?? null,
          });
        }
      }
    }
  }
  for (const test of report.tests) {
    const sessions = new Map(test.sessions.map((session) => [session.executionId, session]));
    (test.verdicts ?? []).forEach((verdict, position) => {
      const id = verdict.subject?.executionId ?? null;
      const session = id === null ? undefined : sessions.get(id);
      insert(db, "verdicts", {
        run_id: runId,
        test_id: test.id,
        position,
        execution_id: id,
        turn: verdict.subject?.turn ?? null,
        trial: verdict.trial,
        harness: session ? (session.harness ?? session.agent) : null,
        model: session?.model ?? null,
        criteria: verdict.criteria,
        judge_model: verdict.judge?.model ?? null,
        score: verdict.score ?? null,
        pass: verdict.pass === undefined ? null : verdict.pass ? 1 : 0,
        passed: verdict.passed === undefined ? null : verdict.passed ? 1 : 0,
        threshold: verdict.threshold,
        latency_ms: verdict.latencyMs ?? null,
        error: verdict.error ? `${verdict.error.reason}: ${verdict.error.message}` : null,
      });
    });
  }
  for (const [key, tool] of catalogs) {
    const [server = "", name = ""] = key.split("\u0000");
    insert(db, "catalogs", {
      run_id: runId,
      server,
      tool: name,
      schema_hash: tool.hash,
      description: tool.description,
    });
  }
  for (const cost of costs.values()) {
    insert(db, "catalog_costs", {
      run_id: runId,
      server: cost.server,
      harness: cost.harness,
      model: cost.model,
      tools: cost.tools,
      bytes: cost.bytes,
      estimated_tokens: cost.tokens,
      sessions: cost.sessions,
    });
  }
  return runId;
}

/** Records `report` in the history at `path` (created when missing), under its lock. */
export async function recordRunInStore(
  path: string,
  report: RunReport,
  run: RunFile | null,
): Promise<string> {
  return updateHistory(path, (db) => insertRun(db, report, run));
}
