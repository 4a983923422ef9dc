import { performance } from "node:perf_hooks";

/**
 * Milliseconds since the Unix epoch, from the monotonic clock: it never goes backwards
 * within a process, unlike `Date.now()`, and is comparable with wall-clock time.
 */
export function monotonicNow(): number {
  return performance.timeOrigin + performance.now();
}
