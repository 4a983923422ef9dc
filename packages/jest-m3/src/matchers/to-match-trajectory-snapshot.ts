import { normalizeTrajectory } from "@jest-m3/core/runner";
import type { expect as JestGlobalExpect } from "@jest/globals";
import { throwUsage } from "../format/messages.js";
import { redactValue } from "../format/values.js";
import { subjectFor, type MatcherResult, type M3MatcherContext } from "./context.js";

/**
 * The session's calls per turn as the snapshot stores them: one line per call, `server:tool
 * arguments → status`, arguments with sorted keys and credentials redacted.
 */
export function trajectoryText(received: unknown, context: M3MatcherContext): string {
  const subject = subjectFor(context, "toMatchTrajectorySnapshot", received);
  const { turns } = normalizeTrajectory(subject);
  if (turns.length === 0) return "(no turns)";
  return turns
    .map(
      ({ turn, calls }) =>
        `turn ${turn}\n` +
        (calls.length === 0
          ? "  (no tool calls)"
          : calls
              .map(
                (call) =>
                  `  ${call.server}:${call.tool} ${JSON.stringify(redactValue(call.arguments))} → ${call.status}`,
              )
              .join("\n")),
    )
    .join("\n");
}

/**
 * `expect(result).toMatchTrajectorySnapshot(hint?)`: the session's wire calls per turn
 * (server, tool, arguments, status), normalized to be stable across runs and agents (no ids,
 * timestamps or latencies; parallel calls sorted), match the stored snapshot. `jest -u`
 * updates it.
 */
export function toMatchTrajectorySnapshot(
  this: M3MatcherContext,
  received: unknown,
  hint?: string,
): MatcherResult {
  const name = "toMatchTrajectorySnapshot";
  if (hint !== undefined && typeof hint !== "string") {
    throwUsage(this, name, "the hint must be a string");
  }
  if (this.isNot) throwUsage(this, name, "a snapshot matcher cannot be used with .not");
  const subject = subjectFor(this, name, received);
  if (!subject.finished) {
    throwUsage(this, name, "the subject can still gain calls; snapshot session.result after close");
  }
  const text = trajectoryText(received, this);
  // Jest's own snapshot matcher does the storing, `-u` and the diff: same file, same rules.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded inside a test only
  const jestExpect = (require("@jest/globals") as { expect: typeof JestGlobalExpect }).expect;
  try {
    jestExpect(text).toMatchSnapshot(hint ?? name);
  } catch (error) {
    const failure = error instanceof Error ? error.message : String(error);
    return {
      pass: false,
      message: () =>
        failure
          .replace(/toMatchSnapshot\(hint\)/g, `${name}(hint)`)
          .replace(/toMatchSnapshot/g, name),
    };
  }
  return { pass: true, message: () => `${name}: the trajectory matches the snapshot` };
}
