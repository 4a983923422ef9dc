import { normalizeTrajectory } from "@jest-m3/core/runner";
import { toMatchSnapshot, type Context } from "jest-snapshot";
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
  const snapshotContext = this as unknown as Context;
  if (!snapshotContext.snapshotState) {
    throwUsage(this, name, "snapshots are only available inside a Jest test");
  }
  const result = toMatchSnapshot.call(snapshotContext, text, hint ?? name) as MatcherResult;
  return {
    pass: result.pass,
    message: () => result.message().replace(/toMatchSnapshot/g, name),
  };
}
