import {
  describeTurn,
  queryTrajectory,
  type TrajectoryMode,
  type TrajectoryQuery,
  type TrajectoryStep,
} from "@jest-m3/core/runner";
import { turnLabel } from "../format/call-table.js";
import {
  firstDifferenceSection,
  nearMissSection,
  numberedList,
  observedSection,
  rethrowQueryError,
  throwUsage,
} from "../format/messages.js";
import { shortValue } from "../format/values.js";
import { checkOptions, subjectFor, type M3MatcherContext, type MatcherResult } from "./context.js";

/** Options of `toHaveToolCalls`. */
export interface ToolCallsOptions extends TrajectoryQuery {
  /**
   * m3's spelling: `true` (default) is `mode: "strict"`, `false` is `mode: "unordered"`.
   * Give `mode` or `ordered`, not both.
   */
  readonly ordered?: boolean;
}

const OPTION_KEYS = ["mode", "ordered", "argumentsMatch", "server", "turn", "evidence"];

const MODE_WORDS: Readonly<Record<TrajectoryMode, string>> = {
  strict: "exactly these calls, in this order",
  unordered: "exactly these calls, in any order",
  subset: "at least these calls, in any order",
  superset: "no calls but these, in any order",
  inOrder: "these calls in this order, others between allowed",
};

function describeStep(step: TrajectoryStep): string {
  if (typeof step === "string") return step;
  const parts = [`${step.server ? `${step.server}:` : ""}${step.tool}`];
  if (step.arguments !== undefined) parts.push(shortValue(step.arguments));
  if (step.status !== undefined) parts.push(shortValue(step.status));
  return parts.join(" ");
}

/**
 * `expect(result).toHaveToolCalls(["search", { tool: "add_todo", arguments: {...} }], { mode })`:
 * the observed calls (one turn with `turn`, else the whole session) form this trajectory.
 * `strict` by default (m3: the exact list); `unordered`, `subset`, `superset`, `inOrder`.
 */
export function toHaveToolCalls(
  this: M3MatcherContext,
  received: unknown,
  expected: readonly TrajectoryStep[],
  options: ToolCallsOptions = {},
): MatcherResult {
  const name = "toHaveToolCalls";
  if (!Array.isArray(expected)) {
    throwUsage(
      this,
      name,
      `${this.utils.EXPECTED_COLOR("expected")} value must be an array of tool names or { tool, server?, arguments?, status? }`,
      { value: expected, label: "Expected" },
    );
  }
  checkOptions(this, name, options, OPTION_KEYS);
  if (options.mode !== undefined && options.ordered !== undefined) {
    throwUsage(this, name, "give mode or ordered, not both");
  }
  const mode: TrajectoryMode = options.mode ?? (options.ordered === false ? "unordered" : "strict");
  const subject = subjectFor(this, name, received);
  let outcome;
  try {
    outcome = queryTrajectory(
      subject,
      expected,
      {
        mode,
        argumentsMatch: options.argumentsMatch,
        server: options.server,
        turn: options.turn,
        evidence: options.evidence,
      },
      { equals: (actual, wanted) => this.equals(actual, wanted), negated: this.isNot },
    );
  } catch (error) {
    rethrowQueryError(this, name, error);
  }
  const evidence = options.evidence ?? "wire";
  const scope = [
    `${mode}: ${MODE_WORDS[mode]}`,
    ...(options.argumentsMatch && options.argumentsMatch !== "exact"
      ? [`arguments ${options.argumentsMatch}`]
      : []),
    ...(options.server !== undefined ? [`server ${JSON.stringify(options.server)}`] : []),
    options.turn !== undefined ? `turn ${describeTurn(options.turn)}` : "whole session",
  ].join(", ");
  const utils = this.utils;
  const detail = (): string => {
    if (this.isNot) return "";
    let out = "";
    if (outcome.firstDifference !== null && mode === "strict") {
      const index = outcome.firstDifference;
      const step = expected[index];
      const call = outcome.observed[index];
      out += firstDifferenceSection(
        this,
        "call",
        index,
        step === undefined ? undefined : describeStep(step),
        call === undefined ? undefined : `${call.tool} ${shortValue(call.arguments)}`,
      );
    }
    const counts = mode !== "superset";
    if (counts && outcome.missing.length > 0) {
      out += `\n\nMissing (${outcome.missing.length}):`;
      for (const miss of outcome.missing) {
        out += `\n  ${miss.index + 1}. ${describeStep(miss.step)}`;
        const step = miss.step;
        const near = nearMissSection(
          this,
          miss.nearest,
          typeof step === "string"
            ? {}
            : { arguments: step.arguments, argumentsMatch: options.argumentsMatch },
          "closest unused call",
        ).replace(/^\n\n/, "");
        if (near) out += `\n${near.replace(/^(?=.)/gm, "     ")}`;
      }
    }
    if (mode !== "subset" && mode !== "inOrder" && outcome.unexpected.length > 0) {
      out +=
        `\n\nUnexpected (${outcome.unexpected.length}):\n` +
        outcome.unexpected
          .map(
            (call) =>
              `  turn ${turnLabel(call.turnId)}  ${call.server}:${call.tool} ${shortValue(call.arguments)}  ${call.status}`,
          )
          .join("\n");
    }
    return out;
  };
  return {
    pass: outcome.pass,
    message: () =>
      `${utils.matcherHint(name, undefined, "expected", { isNot: this.isNot, secondArgument: "options" })}\n\n` +
      `Expected (${scope})${this.isNot ? ", not" : ""}:\n${numberedList(expected.map(describeStep))}\n` +
      `Received (${evidence} evidence):\n${numberedList(outcome.observed.map((call) => `${call.tool} ${shortValue(call.arguments)}`))}` +
      detail() +
      observedSection(subject.calls, outcome.observed, outcome.notCounted, evidence),
  };
}
