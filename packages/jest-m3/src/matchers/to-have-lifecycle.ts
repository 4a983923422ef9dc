import type { MatcherResult, M3MatcherContext } from "./context.js";
import { snapshotFieldMatcher } from "./outcome-subject.js";

/**
 * `expect(result).toHaveLifecycle("finished")`: where a session (`created` … `finished`) or a
 * turn (`running`, `finished`) stands.
 */
export function toHaveLifecycle(
  this: M3MatcherContext,
  received: unknown,
  expected: string,
): MatcherResult {
  return snapshotFieldMatcher(
    this,
    "toHaveLifecycle",
    received,
    expected,
    "lifecycle",
    (subject) => ` (outcome ${this.utils.printReceived(subject.snapshot.outcome)})`,
  );
}
