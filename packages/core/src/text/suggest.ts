/**
 * "Did you mean …?": the known name closest to one that was not found, for error messages
 * (a misspelt tool, server, harness or option).
 */

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The name close to `name` among `known`, or null when none is close or `name` is itself
 * known. Close: a small edit distance, or the same words in another case or separator
 * (`addTodo` for `add_todo`).
 *
 * @example
 * ```ts
 * suggestName("shipping_qoute", ["shipping_quote", "refund"]); // "shipping_quote"
 * suggestName("codx", ["codex", "gemini"]); // "codex"
 * ```
 */
export function suggestName(name: string, known: Iterable<string>): string | null {
  const words = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]/g, "");
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of new Set(known)) {
    if (candidate === name) return null;
    const distance = words(candidate) === words(name) ? 0 : editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 4)) ? best : null;
}
