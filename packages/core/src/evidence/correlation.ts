import type { ReportedToolCall } from "./trace.js";
import { canonicalJson } from "./canonical.js";
import type { ToolCall } from "./trace.js";
import { isUnavailable, unavailable } from "./unavailable.js";

/**
 * Pairs the calls observed on the wire in one turn with the calls the harness reported
 * for it, and returns one {@link ToolCall} per call, saying which evidence it has.
 *
 * Pairing, in order of authority:
 * 1. a shared id: a reported call whose `jsonrpcId` equals the wire call's JSON-RPC id;
 * 2. within the same server and tool, canonical-JSON equal arguments, when both sides have
 *    the same number of such calls (then in order);
 * 3. within the same server and tool, the leftovers in order, when the counts agree.
 * Anything else stays unpaired; where candidates existed but the counts disagreed, the
 * calls are marked `ambiguous` with a note.
 */
export function correlateTurn(
  wire: readonly ToolCall[],
  reported: readonly ReportedToolCall[],
  turnId: string | null,
  nextReportedId: () => string,
): ToolCall[] {
  const pairs = new Map<ToolCall, ReportedToolCall>();
  const wireLeft = new Set(wire);
  const reportedLeft = new Set(reported);

  for (const call of wire) {
    const match = [...reportedLeft].find(
      (entry) =>
        entry.jsonrpcId !== undefined &&
        !isUnavailable(call.jsonrpcId) &&
        entry.jsonrpcId === call.jsonrpcId &&
        entry.server === call.server &&
        entry.tool === call.tool,
    );
    if (match) {
      pairs.set(call, match);
      wireLeft.delete(call);
      reportedLeft.delete(match);
    }
  }

  const ambiguous = new Map<ToolCall | ReportedToolCall, string>();
  const pairByKey = (
    keyOf: (server: string, tool: string, args: unknown) => string,
    final: boolean,
  ): void => {
    const wireGroups = new Map<string, ToolCall[]>();
    for (const call of wireLeft) {
      const key = keyOf(call.server, call.tool, call.arguments);
      wireGroups.set(key, [...(wireGroups.get(key) ?? []), call]);
    }
    const reportedGroups = new Map<string, ReportedToolCall[]>();
    for (const entry of reportedLeft) {
      const key = keyOf(entry.server, entry.tool, entry.arguments);
      reportedGroups.set(key, [...(reportedGroups.get(key) ?? []), entry]);
    }
    for (const [key, calls] of wireGroups) {
      const entries = reportedGroups.get(key);
      if (!entries) continue;
      if (calls.length === entries.length) {
        calls.forEach((call, index) => {
          const entry = entries[index]!;
          pairs.set(call, entry);
          wireLeft.delete(call);
          reportedLeft.delete(entry);
        });
      } else if (final) {
        const note = `${calls.length} wire call(s) and ${entries.length} reported call(s) of ${calls[0]!.server}:${calls[0]!.tool} could not be paired with certainty`;
        for (const item of [...calls, ...entries]) ambiguous.set(item, note);
      }
    }
  };
  pairByKey(
    (server, tool, args) =>
      `${server}\u0000${tool}\u0000${isUnavailable(args) ? "?" : canonicalJson(args)}`,
    false,
  );
  pairByKey((server, tool) => `${server}\u0000${tool}`, true);

  const paired = new Set(pairs.values());
  const out: ToolCall[] = [];
  for (const call of wire) {
    const entry = pairs.get(call);
    const note = ambiguous.get(call);
    out.push({
      ...call,
      turnId,
      evidence: entry ? "both" : "wire",
      correlation: entry ? "correlated" : note ? "ambiguous" : "wire_only",
      ...(note ? { correlationNote: note } : {}),
      ...(entry ? { reported: entry } : {}),
    });
  }
  for (const entry of reported) {
    if (paired.has(entry)) continue;
    const note = ambiguous.get(entry);
    const startedAt =
      entry.startedAt ?? unavailable("the harness did not report when the call started");
    out.push({
      id: nextReportedId(),
      turnId,
      server: entry.server,
      connection: "(reported)",
      tool: entry.tool,
      arguments: entry.arguments,
      result: entry.result,
      error: entry.error ? { code: 0, message: entry.error } : null,
      status: entry.status,
      evidence: "reported",
      jsonrpcId: unavailable("the harness reported this call; it was not observed on the wire"),
      startedAt,
      endedAt: entry.endedAt ?? unavailable("the harness did not report when the call ended"),
      latencyMs:
        entry.endedAt !== undefined && entry.startedAt !== undefined
          ? entry.endedAt - entry.startedAt
          : unavailable("the harness did not report the call's timing"),
      correlation: note ? "ambiguous" : "reported_only",
      correlationNote:
        note ??
        "reported by the harness but not observed on the wire: it is not evidence that the call reached the server",
      reported: entry,
    });
  }
  return out;
}
