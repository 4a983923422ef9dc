/**
 * Workflow annotations for GitHub Actions: `::error file=…,line=…,title=…::message` on the
 * failing test's line, in the format Jest's own `github-actions` reporter writes (its title
 * `describe › test`, its escaping), the message without the agent transcript.
 */
import { isAbsolute, relative } from "node:path";
import { stripAnsi, TRANSCRIPT_MARKER } from "./build.js";

// Workflow commands, escaped as @actions/core escapes them (and Jest's reporter, for data).
const escapeData = (text: string): string =>
  text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
const escapeProperty = (text: string): string =>
  escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");

/** A stack frame's file and line: `at fn (file:line:col)` or `at file:line:col`. */
const FRAME = /^\s*at (?:.*? \()?(.+?):(\d+):(\d+)\)?\s*$/;

/** One failed test, as the reporter receives it. */
export interface FailedAssertion {
  readonly title: string;
  readonly fullName: string;
  readonly ancestorTitles?: readonly string[];
  readonly failureMessages: readonly string[];
}

/**
 * The `::error` workflow commands of a file's failed tests: one per failure message, on the
 * line of the test file its stack passes through (else its top frame outside
 * node_modules), titled `describe › test` as Jest's `github-actions` reporter titles it, the
 * message without the agent transcript. `base` is the folder paths are given relative to
 * (GitHub's workspace).
 */
export function failureAnnotations(
  testFilePath: string,
  failed: readonly FailedAssertion[],
  base: string,
): string[] {
  const commands: string[] = [];
  for (const test of failed) {
    const title = [...(test.ancestorTitles ?? []), test.title].join(" › ");
    for (const raw of test.failureMessages) {
      const at = raw.indexOf(TRANSCRIPT_MARKER);
      const message = stripAnsi(at < 0 ? raw : raw.slice(0, at));
      const frames = message
        .split("\n")
        .map((line) => FRAME.exec(line))
        .filter((match): match is RegExpExecArray => match !== null)
        .map((match) => ({ file: match[1]!, line: Number(match[2]) }));
      const frame =
        frames.find((candidate) => candidate.file === testFilePath) ??
        frames.find((candidate) => !/node_modules|^node:/.test(candidate.file));
      const file = frame?.file ?? testFilePath;
      const shown = isAbsolute(file) ? relative(base, file) || file : file;
      const where = `file=${escapeProperty(shown)}${frame ? `,line=${frame.line}` : ""}`;
      const text = message
        .split("\n")
        .filter((line) => !FRAME.test(line))
        .join("\n")
        .trim();
      commands.push(`::error ${where},title=${escapeProperty(title)}::${escapeData(text)}`);
    }
  }
  return commands;
}
