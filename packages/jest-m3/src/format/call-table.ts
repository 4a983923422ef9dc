import type { ToolCall } from "@jest-m3/core";
import { shortValue } from "./values.js";

/** The turn number in a turn id (`…/turn-2` → "2"), or "-" outside turns. */
export function turnLabel(turnId: string | null): string {
  if (turnId === null) return "-";
  const match = /turn-(\d+)$/.exec(turnId);
  return match?.[1] ?? turnId;
}

/**
 * Every observed call as an aligned table (turn, server, tool, status, evidence,
 * arguments), for failure messages. Arguments are shortened and redacted.
 */
export function callTable(calls: readonly ToolCall[]): string {
  if (calls.length === 0) return "  (no tool calls were observed)";
  const rows = [
    ["turn", "server", "tool", "status", "evidence", "arguments"],
    ...calls.map((call) => [
      turnLabel(call.turnId),
      call.server,
      call.tool,
      call.status,
      call.evidence,
      shortValue(call.arguments, 100),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map(
      (row) =>
        "  " +
        row
          .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
          .join("  "),
    )
    .join("\n");
}
