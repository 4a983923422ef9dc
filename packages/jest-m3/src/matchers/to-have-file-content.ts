import { fileContentOf } from "@jest-m3/core/runner";
import { throwUsage } from "../format/messages.js";
import type { M3MatcherContext, MatcherResult } from "./context.js";
import { diffSection, workspaceSubject } from "./workspace-subject.js";

/**
 * `expect(result).toHaveFileContent("notes.md", "# Notes\n")`: the file's text after the
 * session equals a string, matches a RegExp, or satisfies an asymmetric matcher
 * (`expect.stringContaining(...)`). The text comes from the workspace's diff, its named
 * artifacts, or the folder if it was kept.
 */
export function toHaveFileContent(
  this: M3MatcherContext,
  received: unknown,
  path: string,
  expected: unknown,
): MatcherResult {
  const name = "toHaveFileContent";
  if (typeof path !== "string" || path === "") {
    throwUsage(this, name, "the first argument must be the file's path inside the workspace", {
      value: path,
      label: "Expected",
    });
  }
  if (expected === undefined) {
    throwUsage(
      this,
      name,
      "give the expected content: a string, a RegExp or an asymmetric matcher",
    );
  }
  const workspace = workspaceSubject(this, name, received);
  const file = fileContentOf(workspace, path);
  const utils = this.utils;
  const hint = utils.matcherHint(name, undefined, "expected", {
    isNot: this.isNot,
    secondArgument: "expected",
  });
  if (file.state !== "text") {
    const why =
      file.state === "deleted"
        ? "the session deleted it"
        : file.state === "binary"
          ? "it is binary (its text cannot be compared)"
          : file.reason;
    return {
      pass: false,
      message: () =>
        `${hint}\n\nFile ${utils.printExpected(path)} has no text to compare: ${why}.` +
        diffSection(workspace.changes),
    };
  }
  const pass =
    expected instanceof RegExp ? expected.test(file.content) : this.equals(file.content, expected);
  return {
    pass,
    message: () =>
      `${hint}\n\nFile ${utils.printExpected(path)}${file.change ? ` (${file.change.change})` : " (unchanged)"}\n\n` +
      (this.isNot
        ? `Expected: not ${utils.printExpected(expected)}\nReceived:     ${utils.printReceived(file.content)}`
        : expected instanceof RegExp
          ? `Expected pattern: ${utils.printExpected(expected)}\nReceived:         ${utils.printReceived(file.content)}`
          : utils.printDiffOrStringify(expected, file.content, "Expected", "Received", true)) +
      (file.change?.diff
        ? `\n\nWhat the session changed:\n${file.change.diff.replace(/\n$/, "").replace(/^/gm, "  ")}`
        : ""),
  };
}
