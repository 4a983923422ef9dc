import type { ExecutionResult, FileChange, WorkspaceResult } from "@jest-m3/core";
import { throwUsage } from "../format/messages.js";
import type { M3MatcherContext } from "./context.js";

function isWorkspace(value: unknown): value is WorkspaceResult {
  return (
    typeof value === "object" &&
    value !== null &&
    Array.isArray((value as { changes?: unknown }).changes) &&
    typeof (value as { kind?: unknown }).kind === "string"
  );
}

/**
 * The workspace of a session's result (or a `result.workspace` itself); a result without
 * one, or any other value, is a usage error that says how to give a session a workspace.
 */
export function workspaceSubject(
  context: M3MatcherContext,
  matcher: string,
  received: unknown,
): WorkspaceResult {
  if (isWorkspace(received)) return received;
  const workspace = (received as Partial<ExecutionResult> | null)?.workspace;
  if (isWorkspace(workspace)) return workspace;
  const isResult =
    typeof received === "object" &&
    received !== null &&
    "snapshot" in received &&
    "turns" in received;
  return throwUsage(
    context,
    matcher,
    isResult
      ? `${context.utils.RECEIVED_COLOR("received")} result has no workspace: give the session one (agent.session({ server, workspace: { copy: "<folder>" } }))`
      : `${context.utils.RECEIVED_COLOR("received")} value must be an ExecutionResult of a session with a workspace (session.result), or its result.workspace`,
    { value: received },
  );
}

/** `renamed a.txt -> b.txt`, `added notes.md (binary)`: one change on one line. */
export function describeChange(change: FileChange): string {
  const what = change.change === "renamed" ? `${change.from} -> ${change.path}` : change.path;
  const marks = [
    ...(change.type === "symlink" ? ["symlink"] : []),
    ...(change.binary ? ["binary"] : []),
  ];
  return `${change.change} ${what}${marks.length > 0 ? ` (${marks.join(", ")})` : ""}`;
}

/** Every change with its text diff (indented), or a note why there is none. */
export function diffSection(changes: readonly FileChange[], limit = 4000): string {
  if (changes.length === 0) return "\n\nThe session changed no file in its workspace.";
  let out = `\n\nWorkspace diff (${changes.length} changed):`;
  for (const change of changes) {
    out += `\n  ${describeChange(change)}`;
    const body = change.diff ?? (change.note ? `(${change.note})` : "");
    if (body !== "") out += `\n${body.replace(/\n$/, "").replace(/^/gm, "      ")}`;
    if (out.length > limit) return `${out.slice(0, limit)}\n  … (diff cut at ${limit} characters)`;
  }
  return out;
}
