// Every failure message of the m3 matchers is put together here: the hint, what was asked,
// what was observed, the nearest call with a diff, "did you mean", and usage errors.
import type { MatcherContext } from "expect";
import type { ToolCall } from "@jest-m3/core";
import { QueryError } from "@jest-m3/core";
import {
  resultProjection,
  toolErrorText,
  type EvidenceFilter,
  type NearMiss,
} from "@jest-m3/core/runner";
import { callTable, rowsOf, turnLabel } from "./call-table.js";
import { shortText, shortValue } from "./values.js";

type Context = MatcherContext;

/**
 * Throws a usage error (a mistake in the test, not a failed expectation): marked `Matcher
 * error`, with the received value and its type when that is what was wrong. Fails under
 * `.not` too.
 */
export function throwUsage(
  context: Context,
  matcher: string,
  problem: string,
  received?: { readonly value: unknown; readonly label?: "Received" | "Expected" },
): never {
  const utils = context.utils;
  throw new Error(
    utils.matcherErrorMessage(
      utils.matcherHint(matcher, undefined, undefined, { isNot: context.isNot }),
      problem,
      received === undefined
        ? undefined
        : utils.printWithType(
            received.label ?? "Received",
            received.value,
            received.label === "Expected" ? utils.printExpected : utils.printReceived,
          ),
    ),
  );
}

/** The expected and received lists of the list matchers: `  1. line` a line, `  (none)` for none. */
export function numberedList(lines: readonly string[]): string {
  return lines.length === 0
    ? "  (none)"
    : lines.map((line, index) => `  ${index + 1}. ${line}`).join("\n");
}

/**
 * `First difference at call 3: expected …, received …` of a strict list matcher, after a blank
 * line. `expected` and `received` describe the entries at `index`; undefined past a list's end
 * (`no more calls`, `no call`). `noun` is the singular of what is listed.
 */
export function firstDifferenceSection(
  context: Context,
  noun: string,
  index: number,
  expected: string | undefined,
  received: string | undefined,
): string {
  const utils = context.utils;
  return (
    `\n\nFirst difference at ${noun} ${index + 1}: expected ${expected === undefined ? `no more ${noun}s` : utils.EXPECTED_COLOR(expected)}, ` +
    `received ${received === undefined ? `no ${noun}` : utils.RECEIVED_COLOR(received)}`
  );
}

/** A {@link QueryError} from core's engine becomes a usage error; anything else is rethrown. */
export function rethrowQueryError(context: Context, matcher: string, error: unknown): never {
  if (error instanceof QueryError) throwUsage(context, matcher, error.message);
  throw error;
}

/** `Observed calls (n, wire evidence):` and the table, reported-only calls marked. */
export function observedSection(
  all: readonly ToolCall[],
  counted: readonly ToolCall[],
  notCounted: readonly { readonly call: ToolCall; readonly reason: string }[],
  evidence: EvidenceFilter,
  options: { readonly errors?: boolean } = {},
): string {
  const more = notCounted.length > 0 ? `; ${notCounted.length} more not counted` : "";
  return (
    `\n\nObserved calls (${counted.length}, ${evidence} evidence${more}):\n` +
    callTable(rowsOf(all, counted, notCounted), options)
  );
}

/** `Did you mean "add_todo"?` when the asked tool was never called but a near name was. */
export function didYouMeanSection(
  context: Context,
  suggestion: string | null,
  calls: readonly ToolCall[],
): string {
  if (suggestion === null) return "";
  const times = calls.filter((call) => call.tool === suggestion).length;
  return `\n\nDid you mean ${context.utils.printReceived(suggestion)}? It was called ${times} time${times === 1 ? "" : "s"}.`;
}

function pick(value: unknown, keys: readonly string[]): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of keys) if (key in value) out[key] = (value as Record<string, unknown>)[key];
  return out;
}

/** What a near miss was asked for, to diff against. */
export interface Asked {
  readonly arguments?: unknown;
  readonly argumentsMatch?: string;
  readonly result?: unknown;
  readonly resultMatch?: string;
}

function diffOf(
  context: Context,
  what: string,
  expected: unknown,
  actual: unknown,
  partial: boolean,
): string {
  const shown =
    partial && typeof expected === "object" && expected !== null
      ? pick(actual, Object.keys(expected))
      : actual;
  const diff = context.utils.diff(expected, shown, {
    aAnnotation: `Expected ${what}`,
    bAnnotation: `Received ${what}`,
    expand: false,
  });
  return diff
    ? `\n${diff}`
    : `\n  Expected ${what}: ${shortValue(expected)}\n  Received ${what}: ${shortValue(actual)}`;
}

/**
 * The observed call nearest to what was asked, which filters it failed, and a diff of its
 * arguments (and result) against the expected ones.
 */
export function nearMissSection(
  context: Context,
  nearest: NearMiss | null,
  asked: Asked,
  heading = "Closest observed call",
): string {
  if (nearest === null) return "";
  const call = nearest.call;
  let out =
    `\n\n${heading}: turn ${turnLabel(call.turnId)}, ${call.server}:${call.tool} ${shortValue(call.arguments)}, ${call.status}` +
    (nearest.failed.length > 0 ? `\n  differs in: ${nearest.failed.join(", ")}` : "");
  if (nearest.failed.includes("arguments") && asked.arguments !== undefined) {
    out += diffOf(
      context,
      "arguments",
      asked.arguments,
      call.arguments,
      asked.argumentsMatch === "partial",
    );
  }
  if (nearest.failed.includes("result") && asked.result !== undefined) {
    out += diffOf(
      context,
      "result",
      asked.result,
      resultProjection(call),
      asked.resultMatch !== "exact",
    );
    out +=
      "\n  compared: the result as m3 projects it ({ content, structuredContent?, isError? })" +
      (asked.resultMatch === "exact"
        ? ', every key (resultMatch: "partial" compares only the keys given)'
        : ", the keys given");
  }
  const error = toolErrorText(call);
  if (error) out += `\n  tool error: ${shortText(error, 300)}`;
  return out;
}
