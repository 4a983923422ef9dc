import type { ExecutionOutcome } from "@jest-m3/core";
import type { ToolCallOptions } from "./matchers/to-have-tool-call.js";
import type { ToolCallsOptions } from "./matchers/to-have-tool-calls.js";

/** The jest-m3 matchers, as every `expect` knows them. */
export interface M3Matchers<R> {
  /**
   * At least one call (or `count`, or between `minCount` and `maxCount`) of `tool` matches
   * every given filter. Wire evidence by default.
   *
   * @example
   * ```ts
   * expect(result).toHaveToolCall("shipping_quote", { turn: first, server: "shipping", status: "success", count: 1 });
   * ```
   */
  toHaveToolCall(tool?: string, options?: ToolCallOptions): R;
  /** Every named tool was called (on the wire), in this order unless `ordered: false`. */
  toHaveToolCalls(tools: readonly string[], options?: ToolCallsOptions): R;
  /** The session's or turn's outcome; prints the error on failure. */
  toHaveOutcome(outcome: ExecutionOutcome | string): R;
  /** The outcome is `completed`; prints the error when not. */
  toBeCompleted(): R;
  /** The result has an error (containing `match`, or matching it when a RegExp). */
  toHaveError(match?: string | RegExp): R;
  /** A turn's reply (or a tool result's text) is exactly `expected`. */
  toHaveText(expected: string): R;
  /** A turn's reply (or a tool result's text) contains `expected`. */
  toHaveTextContaining(expected: string): R;
  /** A turn's reply (or a tool result's text) matches `expected`. */
  toMatchText(expected: RegExp | string): R;
  /** A tool result's `structuredContent` equals `expected`. */
  toHaveStructuredContent(expected: unknown): R;
}

declare module "expect" {
  // Declaration merging: the global and the imported `expect` both know the m3 matchers.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unused-vars
  interface Matchers<R extends void | Promise<void>, T = unknown> extends M3Matchers<R> {}
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unused-vars
    interface Matchers<R, T = {}> extends M3Matchers<R> {}
  }
}
