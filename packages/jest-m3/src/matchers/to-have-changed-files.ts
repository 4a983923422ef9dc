import {
  ChangedFilesQueryError,
  queryChangedFiles,
  type ChangedFileStep,
  type ChangedFilesMode,
} from "@jest-m3/core/runner";
import { firstDifferenceSection, numberedList, throwUsage } from "../format/messages.js";
import { checkOptions, type M3MatcherContext, type MatcherResult } from "./context.js";
import { describeChange, diffSection, workspaceSubject } from "./workspace-subject.js";

/** Options of `toHaveChangedFiles`. */
export interface ChangedFilesOptions {
  /**
   * `strict` (default): exactly these paths, in path order; `unordered`: exactly these, any
   * order; `subset`: at least these; `superset`: none but these.
   */
  readonly mode?: ChangedFilesMode;
}

const MODE_WORDS: Readonly<Record<ChangedFilesMode, string>> = {
  strict: "exactly these files, in path order",
  unordered: "exactly these files, in any order",
  subset: "at least these files",
  superset: "no files but these",
};

function describeStep(step: ChangedFileStep): string {
  if (typeof step === "string") return step;
  const change = step.change === undefined ? "" : ` (${[step.change].flat().join(" | ")})`;
  return `${step.from !== undefined ? `${step.from} -> ` : ""}${step.path}${change}`;
}

/**
 * `expect(result).toHaveChangedFiles(["src/app.ts", { path: "notes.md", change: "added" }], { mode })`:
 * the session changed these paths of its workspace (added, modified, deleted or renamed).
 */
export function toHaveChangedFiles(
  this: M3MatcherContext,
  received: unknown,
  expected: readonly ChangedFileStep[],
  options: ChangedFilesOptions = {},
): MatcherResult {
  const name = "toHaveChangedFiles";
  if (!Array.isArray(expected)) {
    throwUsage(
      this,
      name,
      `${this.utils.EXPECTED_COLOR("expected")} value must be an array of paths or { path, change?, from? }`,
      { value: expected, label: "Expected" },
    );
  }
  checkOptions(this, name, options, ["mode"]);
  const workspace = workspaceSubject(this, name, received);
  let outcome;
  try {
    outcome = queryChangedFiles(workspace, expected, options);
  } catch (error) {
    if (error instanceof ChangedFilesQueryError) throwUsage(this, name, error.message);
    throw error;
  }
  const mode = outcome.mode;
  const utils = this.utils;
  const detail = (): string => {
    if (this.isNot) return "";
    let out = "";
    if (mode === "strict" && outcome.firstDifference !== null) {
      const index = outcome.firstDifference;
      const step = expected[index];
      const change = outcome.observed[index];
      out += firstDifferenceSection(
        this,
        "file",
        index,
        step === undefined ? undefined : describeStep(step),
        change === undefined ? undefined : describeChange(change),
      );
    }
    if (mode !== "superset" && outcome.missing.length > 0) {
      out += `\n\nMissing (${outcome.missing.length}):\n${outcome.missing.map((miss) => `  ${miss.index + 1}. ${describeStep(miss.step)}`).join("\n")}`;
    }
    if (mode !== "subset" && outcome.unexpected.length > 0) {
      out += `\n\nUnexpected (${outcome.unexpected.length}):\n${outcome.unexpected.map((change) => `  ${describeChange(change)}`).join("\n")}`;
    }
    return out;
  };
  return {
    pass: outcome.pass,
    message: () =>
      `${utils.matcherHint(name, undefined, "expected", { isNot: this.isNot, secondArgument: "options" })}\n\n` +
      `Expected (${mode}: ${MODE_WORDS[mode]})${this.isNot ? ", not" : ""}:\n${numberedList(expected.map(describeStep))}\n` +
      `Received (${workspace.kind} workspace of ${workspace.source}):\n${numberedList(outcome.observed.map(describeChange))}` +
      detail() +
      diffSection(outcome.observed),
  };
}
