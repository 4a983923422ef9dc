import type { ExecutionOutcome, Lifecycle, TraceEvent, TurnLifecycle } from "@jest-m3/core";
import type { CapabilityStatus } from "@jest-m3/core/harness";
import type { ChangedFileStep, TrajectoryStep } from "@jest-m3/core/runner";
import type { ChangedFilesOptions } from "./matchers/to-have-changed-files.js";
import type { DurationOptions } from "./matchers/to-have-duration.js";
import type { TokenBudget, TokenBudgetOptions } from "./matchers/to-stay-within-tokens.js";
import type { ModelRequestsOptions } from "./matchers/to-have-model-requests.js";
import type { ToolCallOptions } from "./matchers/to-have-tool-call.js";
import type { ToolCallsOptions } from "./matchers/to-have-tool-calls.js";
import type { ElicitationOptions } from "./matchers/to-have-elicitation.js";
import type { PassJudgeOptions } from "./matchers/to-pass-judge.js";

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
  /**
   * `toHaveToolCall` on what the harness reported (never proof on its own).
   *
   * @example
   * ```ts
   * expect(result).toHaveReportedToolCall("shipping_quote", { turn: 1 });
   * ```
   */
  toHaveReportedToolCall(tool?: string, options?: Omit<ToolCallOptions, "evidence">): R;
  /**
   * The observed calls form this trajectory: `strict` (default), `unordered`, `subset`,
   * `superset` or `inOrder`; per turn with `turn`, else across the session.
   *
   * @example
   * ```ts
   * expect(result).toHaveToolCalls(["shipping_quote", { tool: "shipping_quote", arguments: { zone: "mars" } }], { turn: 2, argumentsMatch: "partial" });
   * ```
   */
  toHaveToolCalls(expected: readonly TrajectoryStep[], options?: ToolCallsOptions): R;
  /**
   * The session's calls per turn (server, tool, arguments, status), normalized, match the
   * stored snapshot; `jest -u` updates it.
   *
   * @example
   * ```ts
   * expect(session.result).toMatchTrajectorySnapshot();
   * ```
   */
  toMatchTrajectorySnapshot(hint?: string): R;
  /**
   * The session's or turn's outcome; prints the error on failure.
   *
   * @example
   * ```ts
   * expect(result).toHaveOutcome(ExecutionOutcome.COMPLETED);
   * ```
   */
  toHaveOutcome(outcome: ExecutionOutcome | string): R;
  /**
   * The outcome is `completed`; prints the error when not.
   *
   * @example
   * ```ts
   * expect(first).toBeCompleted();
   * ```
   */
  toBeCompleted(): R;
  /**
   * Where the session or turn stands (`finished`, `idle`, `running`, ...).
   *
   * @example
   * ```ts
   * expect(session.result).toHaveLifecycle("finished");
   * ```
   */
  toHaveLifecycle(lifecycle: Lifecycle | TurnLifecycle): R;
  /**
   * The result has an error (containing `match` or with that code, or matching the RegExp).
   *
   * @example
   * ```ts
   * expect(result).toHaveError("M3_TURN_TIMEOUT");
   * ```
   */
  toHaveError(match?: string | RegExp): R;
  /**
   * How long a turn, a session or a tool call took, in ms: an expected value (with
   * `toleranceMs`) or bounds.
   *
   * @example
   * ```ts
   * expect(first).toHaveDuration({ maxMs: 30_000 });
   * ```
   */
  toHaveDuration(expected?: number | DurationOptions, options?: DurationOptions): R;
  /**
   * `minMs ≤ duration ≤ maxMs` for a turn, a session or a tool call.
   *
   * @example
   * ```ts
   * expect(first).toHaveDurationBetween(0, 30_000);
   * ```
   */
  toHaveDurationBetween(minMs: number, maxMs: number): R;
  /**
   * The tokens the provider reported for a session (or one turn) stay within the budget.
   * Unavailable usage fails (with `.not` too).
   *
   * @example
   * ```ts
   * expect(result).toStayWithinTokens({ input: 50_000, output: 2_000 }, { turn: 1 });
   * ```
   */
  toStayWithinTokens(budget: TokenBudget, options?: TokenBudgetOptions): R;
  /**
   * How many requests the agent sent its model, in a session or one turn.
   *
   * @example
   * ```ts
   * expect(first).toHaveModelRequests({ max: 3 });
   * ```
   */
  toHaveModelRequests(options: ModelRequestsOptions): R;
  /**
   * A turn's reply (or a tool result's text) is exactly `expected`.
   *
   * @example
   * ```ts
   * expect(first).toHaveText("Your quote is 9 USD.");
   * ```
   */
  toHaveText(expected: string): R;
  /**
   * A turn's reply (or a tool result's text) contains `expected`.
   *
   * @example
   * ```ts
   * expect(second).toHaveTextContaining("15.5");
   * ```
   */
  toHaveTextContaining(expected: string): R;
  /**
   * A turn's reply (or a tool result's text) matches `expected`.
   *
   * @example
   * ```ts
   * expect(first).toMatchText(/\b9 USD\b/);
   * ```
   */
  toMatchText(expected: RegExp | string): R;
  /**
   * A tool result's `structuredContent` equals `expected`.
   *
   * @example
   * ```ts
   * expect(quote).toHaveStructuredContent({ amount: 9, currency: "USD" });
   * ```
   */
  toHaveStructuredContent(expected: unknown): R;
  /**
   * A tool result's (or a ToolCall's) content blocks equal these, in order unless
   * `ordered: false`.
   *
   * @example
   * ```ts
   * expect(quote).toHaveContent([{ type: "text", text: "Quote calculated" }]);
   * ```
   */
  toHaveContent(expected: readonly unknown[], options?: { readonly ordered?: boolean }): R;
  /**
   * Every connection (to `server`) negotiated this MCP protocol version.
   *
   * @example
   * ```ts
   * expect(session.result).toHaveProtocolVersion("2025-06-18");
   * ```
   */
  toHaveProtocolVersion(
    version: string | { asymmetricMatch(other: unknown): boolean },
    options?: { readonly server?: string },
  ): R;
  /**
   * A readiness report has this capability with this status (default `ready`).
   *
   * @example
   * ```ts
   * expect(await agent.readiness()).toHaveCapability("multiTurn");
   * ```
   */
  toHaveCapability(name: string, options?: { readonly status?: CapabilityStatus }): R;
  /**
   * The trace recorded an event of this kind (exactly `count`, if given).
   *
   * @example
   * ```ts
   * expect(session.result).toHaveEvent("connected", { server: "shipping" });
   * ```
   */
  toHaveEvent(
    kind: TraceEvent["kind"],
    options?: { readonly server?: string; readonly count?: number },
  ): R;
  /**
   * The evidence is complete (no gaps), or `partial`.
   *
   * @example
   * ```ts
   * expect(session.result).toHaveTrace({ completeness: "complete" });
   * ```
   */
  toHaveTrace(options?: { readonly completeness?: "complete" | "partial" }): R;
  /**
   * The session changed these paths of its workspace (`result.workspace`): added, modified,
   * deleted or renamed. `strict` (default, in path order), `unordered`, `subset`, `superset`.
   *
   * @example
   * ```ts
   * expect(result).toHaveChangedFiles(["notes.md", { path: "src/app.ts", change: "modified" }], { mode: "unordered" });
   * ```
   */
  toHaveChangedFiles(expected: readonly ChangedFileStep[], options?: ChangedFilesOptions): R;
  /**
   * A workspace file's text after the session: equal to a string, matching a RegExp, or
   * satisfying an asymmetric matcher.
   *
   * @example
   * ```ts
   * expect(result).toHaveFileContent("notes.md", expect.stringContaining("# Notes"));
   * ```
   */
  toHaveFileContent(path: string, expected: string | RegExp | unknown): R;
  /**
   * The server asked for an elicitation matching every given filter (at least one, or
   * exactly `count`), read from the wire: on a direct client, a trace, or a session result.
   *
   * @example
   * ```ts
   * expect(client).toHaveElicitation({ message: "inputs", action: "accept", content: { name: "Ada" } });
   * ```
   */
  toHaveElicitation(expected?: ElicitationOptions): R;
  /**
   * A judge model finds that the turn (or a session's whole conversation) meets `criteria`:
   * its forced `verdict` call says pass, with a score of at least `threshold` when given.
   * Async: await it. A judge that errors or answers without the call fails, under `.not` too.
   *
   * @example
   * ```ts
   * await expect(second).toPassJudge("the reply states the quoted amount", { threshold: 0.8 });
   * ```
   */
  toPassJudge(criteria: string, options?: PassJudgeOptions): Promise<void>;
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
