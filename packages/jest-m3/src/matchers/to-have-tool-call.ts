import { describeTurn, queryToolCalls, type ToolCallQuery } from "@jest-m3/core/runner";
import {
  didYouMeanSection,
  nearMissSection,
  observedSection,
  rethrowQueryError,
  throwUsage,
} from "../format/messages.js";
import { shortValue } from "../format/values.js";
import { checkOptions, subjectFor, type M3MatcherContext, type MatcherResult } from "./context.js";

/** Options of `toHaveToolCall`: every filter of the query engine, and the count. */
export type ToolCallOptions = Omit<ToolCallQuery, "tool">;

/** Where the fluent chain puts its own description of the assertion. */
export const CHAIN_DESCRIPTION = Symbol.for("jest-m3.chain");

const OPTION_KEYS = [
  "server",
  "turn",
  "arguments",
  "argumentsMatch",
  "argumentsUnordered",
  "result",
  "resultMatch",
  "status",
  "evidence",
  "minLatencyMs",
  "maxLatencyMs",
  "predicate",
  "count",
  "minCount",
  "maxCount",
];

function describeQuery(tool: string | undefined, options: ToolCallOptions): string {
  const parts: string[] = [];
  if (tool !== undefined) parts.push(`tool ${JSON.stringify(tool)}`);
  if (options.server !== undefined) parts.push(`server ${JSON.stringify(options.server)}`);
  if (options.turn !== undefined) parts.push(`turn ${describeTurn(options.turn)}`);
  if (options.arguments !== undefined && options.argumentsMatch !== "ignored") {
    const how = options.argumentsMatch === "partial" ? "arguments including" : "arguments";
    parts.push(
      `${how} ${shortValue(options.arguments)}${options.argumentsUnordered ? " (arrays in any order)" : ""}`,
    );
  }
  if (options.result !== undefined) {
    parts.push(
      `${options.resultMatch === "partial" ? "result including" : "result"} ${shortValue(options.result)}`,
    );
  }
  if (options.status !== undefined) parts.push(`status ${shortValue(options.status)}`);
  if (options.minLatencyMs !== undefined || options.maxLatencyMs !== undefined) {
    parts.push(
      `latency ${options.minLatencyMs ?? 0}..${options.maxLatencyMs === undefined ? "∞" : options.maxLatencyMs} ms`,
    );
  }
  if (options.predicate !== undefined) parts.push("the predicate");
  return parts.length > 0 ? parts.join(", ") : "any tool";
}

/**
 * `expect(result).toHaveToolCall(tool?, options?)`: at least one call (or `count`, or
 * between `minCount` and `maxCount`) matches. Wire evidence by default; `result` compares
 * exactly (m3's projection) unless `resultMatch: "partial"`.
 */
export function toHaveToolCall(
  this: M3MatcherContext,
  received: unknown,
  tool?: string,
  options: ToolCallOptions = {},
): MatcherResult {
  return toolCallMatcher(this, "toHaveToolCall", received, tool, options);
}

/**
 * `expect(result).toHaveReportedToolCall(tool?, options?)`: `toHaveToolCall` on what the
 * harness reported (`evidence: "reported"`), which is never proof on its own.
 */
export function toHaveReportedToolCall(
  this: M3MatcherContext,
  received: unknown,
  tool?: string,
  options: ToolCallOptions = {},
): MatcherResult {
  if (options !== null && typeof options === "object" && "evidence" in options) {
    throwUsage(
      this,
      "toHaveReportedToolCall",
      'evidence is always "reported" here; use toHaveToolCall to choose',
    );
  }
  return toolCallMatcher(this, "toHaveReportedToolCall", received, tool, {
    ...options,
    evidence: "reported",
  });
}

function toolCallMatcher(
  context: M3MatcherContext,
  name: string,
  received: unknown,
  tool: string | undefined,
  options: ToolCallOptions,
): MatcherResult {
  if (tool !== undefined && typeof tool !== "string") {
    throwUsage(
      context,
      name,
      `the tool name must be a string, got ${context.utils.printExpected(tool)}`,
    );
  }
  checkOptions(context, name, options, OPTION_KEYS);
  const subject = subjectFor(context, name, received);
  // m3 compares results exactly unless partial is asked; the engine's own default is partial.
  const query: ToolCallQuery = {
    ...options,
    ...(options.result !== undefined ? { resultMatch: options.resultMatch ?? "exact" } : {}),
    ...(tool !== undefined ? { tool } : {}),
  };
  let outcome;
  try {
    outcome = queryToolCalls(subject, query, {
      equals: (actual, expected) => context.equals(actual, expected),
      negated: context.isNot,
    });
  } catch (error) {
    rethrowQueryError(context, name, error);
  }
  const utils = context.utils;
  const chain = (options as { [CHAIN_DESCRIPTION]?: string })[CHAIN_DESCRIPTION];
  const hint = chain
    ? `${utils.matcherHint(name, undefined, tool === undefined ? "" : JSON.stringify(tool), { isNot: context.isNot })}${chain}`
    : utils.matcherHint(name, undefined, tool === undefined ? "" : "tool", {
        isNot: context.isNot,
        secondArgument: "options",
      });
  const evidence = query.evidence ?? "wire";
  const asked = describeQuery(tool, query);
  const n = outcome.matches.length;
  const found = utils.RECEIVED_COLOR(`${n} matching call${n === 1 ? "" : "s"}`);
  const assertsResult = options.result !== undefined || options.status !== undefined;
  const message = (): string =>
    `${hint}\n\n` +
    (context.isNot
      ? `Expected: ${utils.EXPECTED_COLOR(`no call (${outcome.expectedCount} would pass)`)} matching ${asked}\n`
      : `Expected: ${utils.EXPECTED_COLOR(outcome.expectedCount)} call(s) matching ${asked}\n`) +
    `Received: ${found} (${evidence} evidence)` +
    (context.isNot
      ? ""
      : didYouMeanSection(context, outcome.didYouMean, subject.calls) +
        nearMissSection(context, outcome.nearest, query)) +
    observedSection(subject.calls, outcome.observed, outcome.notCounted, evidence, {
      errors: assertsResult,
    });
  return { pass: outcome.pass, message };
}
