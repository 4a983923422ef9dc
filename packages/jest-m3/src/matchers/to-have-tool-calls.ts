import type { TurnRef } from "@jest-m3/core/runner";
import { callTable } from "../format/call-table.js";
import { subjectFor, type M3MatcherContext, type MatcherResult } from "./context.js";

/** Options of `toHaveToolCalls`. */
export interface ToolCallsOptions {
  /** The calls must appear in this order (default true); other calls may come between. */
  readonly ordered?: boolean;
  readonly server?: string;
  readonly turn?: TurnRef;
}

/**
 * `expect(result).toHaveToolCalls(["a", "b"], { ordered?, server?, turn? })`: every named
 * tool was called (on the wire), in this order unless `ordered: false`.
 */
export function toHaveToolCalls(
  this: M3MatcherContext,
  received: unknown,
  tools: readonly string[],
  options: ToolCallsOptions = {},
): MatcherResult {
  const name = "toHaveToolCalls";
  if (!Array.isArray(tools) || tools.some((tool) => typeof tool !== "string")) {
    throw new Error(
      this.utils.matcherErrorMessage(
        this.utils.matcherHint(name, undefined, "tools", { isNot: this.isNot }),
        `${this.utils.EXPECTED_COLOR("expected")} value must be an array of tool names`,
        this.utils.printWithType("Expected", tools, this.utils.printExpected),
      ),
    );
  }
  const subject = subjectFor(this, name, received);
  const usage = (problem: string): never => {
    throw new Error(
      this.utils.matcherErrorMessage(
        this.utils.matcherHint(name, undefined, "tools", { isNot: this.isNot }),
        problem,
      ),
    );
  };
  for (const key of Object.keys(options)) {
    if (!["ordered", "server", "turn"].includes(key))
      usage(`unknown option "${key}"; the options are ordered, server, turn`);
  }
  if (this.isNot && subject.gaps.length > 0) {
    usage(
      `cannot prove that these calls did not happen: the evidence has gaps (${subject.gaps.join("; ")})`,
    );
  }
  if (this.isNot && !subject.finished) {
    usage(
      "a .not assertion needs a finished subject: use session.result after close, a TurnResult, or a closed client",
    );
  }
  let turnId: string | undefined;
  if (options.turn !== undefined) {
    turnId =
      typeof options.turn === "object"
        ? options.turn.snapshot.turnId
        : typeof options.turn === "number"
          ? subject.turns.get(options.turn)
          : options.turn;
    if (turnId === undefined) usage(`turn ${String(options.turn)} is not a turn of this subject`);
  }
  const calls = subject.calls.filter(
    (call) =>
      (call.evidence === "wire" || call.evidence === "both") &&
      (options.server === undefined || call.server === options.server) &&
      (turnId === undefined || call.turnId === turnId),
  );
  const sequence = calls.map((call) => call.tool);
  let pass: boolean;
  if (options.ordered === false) {
    const remaining = [...sequence];
    pass = tools.every((tool) => {
      const index = remaining.indexOf(tool);
      if (index < 0) return false;
      remaining.splice(index, 1);
      return true;
    });
  } else {
    let position = 0;
    for (const tool of sequence) if (tool === tools[position]) position++;
    pass = position === tools.length;
  }
  return {
    pass,
    message: () =>
      `${this.utils.matcherHint(name, undefined, "tools", { isNot: this.isNot, secondArgument: "options" })}\n\n` +
      `Expected: ${this.isNot ? "not " : ""}${this.utils.printExpected(tools)}${options.ordered === false ? " (any order)" : " (in order)"}\n` +
      `Received: ${this.utils.printReceived(sequence)}\n\n` +
      `Observed calls (${calls.length}, wire evidence):\n${callTable(calls)}`,
  };
}
