import { isUnavailable } from "@jest-m3/core/lean";
import { isSecretName } from "@jest-m3/core/lean";

const MAX_VALUE = 160;

interface AsymmetricMatcherLike {
  asymmetricMatch(other: unknown): boolean;
  toAsymmetricMatcher?(): string;
  toString(): string;
}

function isAsymmetricMatcher(value: unknown): value is AsymmetricMatcherLike {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { asymmetricMatch?: unknown }).asymmetricMatch === "function"
  );
}

/** How an asymmetric matcher reads in a message: `Any<Number>`, `CloseTo(3, 5)`, ... */
function describeMatcher(matcher: AsymmetricMatcherLike): string {
  return matcher.toAsymmetricMatcher ? matcher.toAsymmetricMatcher() : matcher.toString();
}

/** A copy of `value` with credential-looking keys replaced by "[redacted]", at every depth. */
export function redactValue(value: unknown): unknown {
  if (isAsymmetricMatcher(value)) return describeMatcher(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value))
      out[key] = isSecretName(key) ? "[redacted]" : redactValue(entry);
    return out;
  }
  return value;
}

/** One-line JSON of a value for failure output: redacted, shortened, unavailable said plainly. */
export function shortValue(value: unknown, max = MAX_VALUE): string {
  if (isUnavailable(value)) return `(unavailable: ${value.reason})`;
  if (value === undefined) return "undefined";
  let text: string;
  try {
    text = JSON.stringify(redactValue(value)) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Text on one line for failure output: newlines shown as `⏎`, shortened to `max`. */
export function shortText(text: string, max = MAX_VALUE): string {
  const flat = text.replace(/\r?\n/g, " ⏎ ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
