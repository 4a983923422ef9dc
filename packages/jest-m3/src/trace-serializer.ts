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

function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value))
      if (!VOLATILE.has(key)) out[key] = stable(entry);
    serialized.add(out);
    return out;
  }
  return value;
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
