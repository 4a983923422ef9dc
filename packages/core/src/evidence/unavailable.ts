/**
 * A value the kit did not observe. Evidence never turns a missing observation into `""`,
 * `{}` or an assumed success: it says it is unavailable, and why.
 *
 * @example
 * ```ts
 * if (isUnavailable(call.result)) console.log(`no result: ${call.result.reason}`);
 * ```
 */
export interface Unavailable {
  readonly unavailable: true;
  /** Why the value was not observed, in words a test author can act on. */
  readonly reason: string;
}

/** Builds an {@link Unavailable} marker. */
export function unavailable(reason: string): Unavailable {
  return Object.freeze({ unavailable: true as const, reason });
}

/** True when `value` is an {@link Unavailable} marker. */
export function isUnavailable(value: unknown): value is Unavailable {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { unavailable?: unknown }).unavailable === true &&
    typeof (value as { reason?: unknown }).reason === "string"
  );
}
