/**
 * Snapshot serializer for traces and tool calls: leaves out what changes from run to run
 * (ids, timestamps, latencies, connection names, JSON-RPC ids), so a snapshot of a trace
 * is stable.
 */
const VOLATILE = new Set([
  "id",
  "seq",
  "at",
  "startedAt",
  "endedAt",
  "latencyMs",
  "connection",
  "jsonrpcId",
  "turnId",
  "createdAt",
  "finishedAt",
  "executionId",
  "sessionId",
]);

/** Copies already made stable: the printer calls `test` again on them. */
const serialized = new WeakSet<object>();

function isTraceLike(value: unknown): boolean {
  if (typeof value !== "object" || value === null || serialized.has(value)) return false;
  const record = value as Record<string, unknown>;
  const isTrace = Array.isArray(record.toolCalls) && Array.isArray(record.messages);
  const isCall =
    typeof record.tool === "string" && typeof record.status === "string" && "jsonrpcId" in record;
  return isTrace || isCall;
}

/** Drops the volatile fields of one record (a call, a message, an event), never of a payload. */
function stableRecord(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (VOLATILE.has(key)) continue;
    // A message's own JSON-RPC id is volatile; its params and result are the payload.
    if (key === "message" && typeof value === "object" && value !== null) {
      out[key] = Object.fromEntries(Object.entries(value).filter(([name]) => name !== "id"));
    } else if (key === "reported" && typeof value === "object" && value !== null) {
      // What the harness reported for an agent's call: its ids and times change every run
      // too; its arguments and result are the payload.
      const reported = Object.fromEntries(
        Object.entries(value).filter(([name]) => !VOLATILE.has(name)),
      );
      serialized.add(reported);
      out[key] = reported;
    } else out[key] = value;
  }
  serialized.add(out);
  return out;
}

function stable(value: unknown): unknown {
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.toolCalls) && Array.isArray(record.messages)) {
    const out: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(record)) {
      out[key] = Array.isArray(entry)
        ? entry.map((item) =>
            typeof item === "object" && item !== null
              ? stableRecord(item as Record<string, unknown>)
              : item,
          )
        : entry;
    }
    serialized.add(out);
    return out;
  }
  return stableRecord(record);
}

/** Jest snapshot serializer (`snapshotSerializers` in the preset). */
const serializer = {
  test: isTraceLike,
  serialize(
    value: unknown,
    config: unknown,
    indentation: string,
    depth: number,
    refs: unknown,
    printer: (
      value: unknown,
      config: unknown,
      indentation: string,
      depth: number,
      refs: unknown,
    ) => string,
  ): string {
    return printer(stable(value), config, indentation, depth, refs);
  },
};

export = serializer;
