import { queryToolCalls, type ToolCallQuery } from "@jest-m3/core/runner";
import { callTable } from "../format/call-table.js";
import { shortValue } from "../format/values.js";
import { subjectFor, usageError, type M3MatcherContext, type MatcherResult } from "./context.js";

/** Options of `toHaveToolCall`: every filter of the query engine, and the count. */
export type ToolCallOptions = Omit<ToolCallQuery, "tool">;

/** Where the fluent chain puts its own description of the assertion. */
export const CHAIN_DESCRIPTION = Symbol.for("jest-m3.chain");

const OPTION_KEYS = [
  "server",
  "turn",
  "arguments",
  "argumentsMatch",
  "result",
  "status",
  "evidence",
  "count",
  "minCount",
  "maxCount",
];

function describeQuery(tool: string | undefined, options: ToolCallOptions): string {
  const parts: string[] = [];
  if (tool !== undefined) parts.push(`tool ${JSON.stringify(tool)}`);
  if (options.server !== undefined) parts.push(`server ${JSON.stringify(options.server)}`);
  if (options.turn !== undefined) {
    const turn = options.turn;
    parts.push(`turn ${typeof turn === "object" ? turn.snapshot.number : JSON.stringify(turn)}`);
  }
  if (options.arguments !== undefined) {
    parts.push(
      `${options.argumentsMatch === "partial" ? "arguments including" : "arguments"} ${shortValue(options.arguments)}`,
    );
  }
  if (options.result !== undefined) parts.push(`result including ${shortValue(options.result)}`);
  if (options.status !== undefined) parts.push(`status ${shortValue(options.status)}`);
  return parts.length > 0 ? parts.join(", ") : "any tool";
}

/**
 * `expect(result).toHaveToolCall(tool?, options?)`: at least one call (or `count`, or
 * between `minCount` and `maxCount`) matches. Wire evidence by default.
 */
export function toHaveToolCall(
  this: M3MatcherContext,
  received: unknown,
  tool?: string,
  options: ToolCallOptions = {},
): MatcherResult {
  const name = "toHaveToolCall";
  if (tool !== undefined && typeof tool !== "string") {
    usageErrorFor(
      this,
      name,
      `the tool name must be a string, got ${this.utils.printExpected(tool)}`,
    );
  }
  if (typeof options !== "object" || options === null) {
    usageErrorFor(
      this,
      name,
      `options must be an object, got ${this.utils.printExpected(options)}`,
    );
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) {
      usageErrorFor(
        this,
        name,
        `unknown option "${key}"; the options are ${OPTION_KEYS.join(", ")}`,
      );
    }
  }
  const subject = subjectFor(this, name, received);
  let outcome;
  try {
    outcome = queryToolCalls(
      subject,
      { ...options, ...(tool !== undefined ? { tool } : {}) },
      { equals: (actual, expected) => this.equals(actual, expected), negated: this.isNot },
    );
  } catch (error) {
    usageError(this, name, error);
  }
  const chain = (options as { [CHAIN_DESCRIPTION]?: string })[CHAIN_DESCRIPTION];
  const hint = chain
    ? `${this.utils.matcherHint(name, undefined, tool === undefined ? "" : JSON.stringify(tool), { isNot: this.isNot })}${chain}`
    : this.utils.matcherHint(name, undefined, tool === undefined ? "" : "tool", {
        isNot: this.isNot,
        secondArgument: "options",
      });
  const evidence = options.evidence ?? "wire";
  const asked = describeQuery(tool, options);
  const n = outcome.matches.length;
  const found = this.utils.RECEIVED_COLOR(`${n} matching call${n === 1 ? "" : "s"}`);
  const message = (): string =>
    `${hint}\n\n` +
    (this.isNot
      ? `Expected: ${this.utils.EXPECTED_COLOR(`no call (${outcome.expectedCount} would pass)`)} matching ${asked}\n`
      : `Expected: ${this.utils.EXPECTED_COLOR(outcome.expectedCount)} call(s) matching ${asked}\n`) +
    `Received: ${found} (${evidence} evidence)\n\n` +
    `Observed calls (${outcome.observed.length}, ${evidence} evidence):\n${callTable(outcome.observed)}`;
  return { pass: outcome.pass, message };
}

function usageErrorFor(context: M3MatcherContext, name: string, problem: string): never {
  throw new Error(
    context.utils.matcherErrorMessage(
      context.utils.matcherHint(name, undefined, undefined, { isNot: context.isNot }),
      problem,
    ),
  );
}
