/**
 * The verdicts of each session's trace, by execution id: a judge asked about a turn (which
 * knows only its turn id) finds the trace of the session it belongs to here, and the
 * session's results all share the one list, so a verdict given after close is in it too.
 */
import type { TraceVerdict } from "./trace.js";

const bySession = new Map<string, TraceVerdict[]>();

/** The live list of verdicts of session `executionId` (empty until a judge answers). */
export function traceVerdicts(executionId: string): readonly TraceVerdict[] {
  let list = bySession.get(executionId);
  if (!list) {
    list = [];
    bySession.set(executionId, list);
  }
  return list;
}

/** @internal Adds a verdict to the trace of session `executionId`. */
export function recordTraceVerdict(executionId: string, verdict: TraceVerdict): void {
  (traceVerdicts(executionId) as TraceVerdict[]).push(verdict);
}
