/** One line of an edit script: kept, removed from the old text, or added by the new. */
type Edit = { readonly op: " " | "-" | "+"; readonly line: string };

/** Above this many differing lines, a text diff is not worth its cost (Myers is O((N+M)·D)). */
const MAX_EDIT_DISTANCE = 1000;

/** The shortest edit script between two line lists (Myers), or null past the distance limit. */
function editScript(a: readonly string[], b: readonly string[]): Edit[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
          ? v[offset + k + 1]!
          : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, [...trace.slice(1), next], offset, d);
    }
    v = next;
  }
  return null;
}

function backtrack(
  a: readonly string[],
  b: readonly string[],
  trace: readonly Int32Array[],
  offset: number,
  distance: number,
): Edit[] {
  const edits: Edit[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = distance; d > 0; d--) {
    const v = trace[d - 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      edits.push({ op: " ", line: a[--x]! });
      y--;
    }
    if (down) edits.push({ op: "+", line: b[--y]! });
    else edits.push({ op: "-", line: a[--x]! });
  }
  while (x > 0 && y > 0) {
    edits.push({ op: " ", line: a[--x]! });
    y--;
  }
  return edits.reverse();
}

function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * A unified diff (`diff -u` style, three lines of context) between two texts, or null
 * when they are equal or differ in too many lines for a readable diff.
 *
 * @example
 * ```ts
 * unifiedDiff("notes.txt", "a\nb\n", "a\nc\n", { from: "notes.txt" });
 * // "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
 * ```
 */
export function unifiedDiff(
  path: string,
  before: string | null,
  after: string | null,
  options: { readonly from?: string; readonly context?: number } = {},
): string | null {
  if (before === after) return null;
  const edits = editScript(linesOf(before ?? ""), linesOf(after ?? ""));
  if (edits === null) return null;
  const context = options.context ?? 3;
  const header =
    `--- ${before === null ? "/dev/null" : `a/${options.from ?? path}`}\n` +
    `+++ ${after === null ? "/dev/null" : `b/${path}`}\n`;
  const changed = edits.flatMap((edit, index) => (edit.op === " " ? [] : [index]));
  if (changed.length === 0) {
    // Only the final newline differs.
    return `${header}@@ end of file @@\n\\ ${before?.endsWith("\n") ? "newline at end of file removed" : "newline at end of file added"}\n`;
  }
  const hunks: { start: number; end: number }[] = [];
  for (const index of changed) {
    const last = hunks[hunks.length - 1];
    const start = Math.max(0, index - context);
    const end = Math.min(edits.length, index + context + 1);
    if (last && start <= last.end) last.end = end;
    else hunks.push({ start, end });
  }
  let out = header;
  for (const hunk of hunks) {
    let oldLine = 1;
    let newLine = 1;
    for (const edit of edits.slice(0, hunk.start)) {
      if (edit.op !== "+") oldLine++;
      if (edit.op !== "-") newLine++;
    }
    const body = edits.slice(hunk.start, hunk.end);
    const oldCount = body.filter((edit) => edit.op !== "+").length;
    const newCount = body.filter((edit) => edit.op !== "-").length;
    out += `@@ -${oldCount === 0 ? oldLine - 1 : oldLine},${oldCount} +${newCount === 0 ? newLine - 1 : newLine},${newCount} @@\n`;
    for (const edit of body) out += `${edit.op}${edit.line}\n`;
  }
  return out;
}
