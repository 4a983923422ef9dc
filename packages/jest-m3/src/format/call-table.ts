import type { ToolCall } from "@jest-m3/core";
import { toolErrorText } from "@jest-m3/core/runner";
import { shortText, shortValue } from "./values.js";

/** The turn number in a turn id (`…/turn-2` → "2"), or "-" outside turns. */
export function turnLabel(turnId: string | null): string {
  if (turnId === null) return "-";
  const match = /turn-(\d+)$/.exec(turnId);
  return match?.[1] ?? turnId;
}

/** One row of a call table: a call, and why it does not count when it does not. */
export interface CallRow {
  readonly call: ToolCall;
  readonly notCounted?: string;
}

/** What a table shows beyond the calls. */
export interface CallTableOptions {
  /** Show each failed call's error text under its row (where a result is asserted). */
  readonly errors?: boolean;
}

/**
 * Calls as an aligned table (turn, server, tool, status, evidence, arguments), for failure
 * messages. Arguments are shortened and redacted; a call the chosen evidence does not count
 * is marked with the reason.
 */
export function callTable(rows: readonly CallRow[], options: CallTableOptions = {}): string {
  if (rows.length === 0) return "  (no tool calls were observed)";
  const cells = [
    ["turn", "server", "tool", "status", "evidence", "arguments"],
    ...rows.map(({ call }) => [
      turnLabel(call.turnId),
      call.server,
      call.tool,
      call.status,
      call.evidence,
      shortValue(call.arguments, 100),
    ]),
  ];
  const widths = cells[0]!.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  const line = (row: readonly string[]): string =>
    "  " +
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join("  ");
  const out = [line(cells[0]!)];
  rows.forEach((row, index) => {
    out.push(
      line(cells[index + 1]!) + (row.notCounted ? `  (not counted: ${row.notCounted})` : ""),
    );
    const error = options.errors ? toolErrorText(row.call) : null;
    if (error) out.push(`      error: ${shortText(error, 200)}`);
  });
  return out.join("\n");
}

/** Counted and uncounted calls back in the subject's order, as table rows. */
export function rowsOf(
  all: readonly ToolCall[],
  counted: readonly ToolCall[],
  notCounted: readonly { readonly call: ToolCall; readonly reason: string }[],
): CallRow[] {
  const position = new Map(all.map((call, index) => [call.id, index]));
  return [
    ...counted.map((call) => ({ call })),
    ...notCounted.map(({ call, reason }) => ({ call, notCounted: reason })),
  ].sort((a, b) => (position.get(a.call.id) ?? 0) - (position.get(b.call.id) ?? 0));
}
