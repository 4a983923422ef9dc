import { defaultRuntime, normalizeTrajectory } from "@jest-m3/core/runner";
import type { expect as JestGlobalExpect } from "@jest/globals";
import { throwUsage } from "../format/messages.js";
import { redactValue } from "../format/values.js";
import {
  agentTestOf,
  checkAgentSnapshot,
  snapshotStateOf,
  type AgentTest,
} from "../matrix/agent-snapshots.js";
import { subjectFor, type MatcherResult, type M3MatcherContext } from "./context.js";

/**
 * The session's calls per turn as the snapshot stores them: one line per call, `server:tool
 * arguments → status`, arguments with sorted keys and credentials redacted: by name, and by
 * value every secret the kits handed out (a credential a server echoed into a later call's
 * arguments is stored as `[redacted: NAME]`).
 */
export function trajectoryText(received: unknown, context: M3MatcherContext): string {
  const subject = subjectFor(context, "toMatchTrajectorySnapshot", received);
  const { turns } = normalizeTrajectory(subject);
  if (turns.length === 0) return "(no turns)";
  const text = turns
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
  return defaultRuntime().scrub(text);
}

/**
 * `expect(result).toMatchTrajectorySnapshot(hint?)`: the session's wire calls per turn
 * (server, tool, arguments, status), normalized to be stable across runs and agents (no ids,
 * timestamps or latencies; parallel calls sorted), match the stored snapshot. `jest -u`
 * updates it. Inside `describeAgents` the agents whose trajectories agree share one
 * snapshot per test, named without agent or version; an agent that differs gets its own.
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
  const testName = this.currentConcurrentTestName?.() ?? this.currentTestName ?? "";
  const agentTest = agentTestOf(testName);
  if (agentTest) return agentSnapshot(this, agentTest, hint ?? name, text);
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

/**
 * Inside `describeAgents`: the snapshot the agents share, or this agent's own where its
 * trajectory differs (see matrix/agent-snapshots.ts).
 */
function agentSnapshot(
  context: M3MatcherContext,
  test: AgentTest,
  hint: string,
  text: string,
): MatcherResult {
  const name = "toMatchTrajectorySnapshot";
  const state = snapshotStateOf((context as { snapshotState?: unknown }).snapshotState);
  if (typeof state === "string") throwUsage(context, name, state);
  const check = checkAgentSnapshot(state, test, hint, text, context.currentTestIdentity?.());
  if (check.pass) {
    return { pass: true, message: () => `${name}: the trajectory matches the snapshot` };
  }
  const which =
    check.kind === "own"
      ? `${check.agentName}'s own snapshot (its trajectory differed from the other agents')`
      : `the snapshot the agents share${check.agreeing.length > 0 ? ` (${check.agreeing.join(", ")} matched it in this run)` : ""}`;
  const fix =
    check.expected === undefined
      ? "No snapshot is stored for it and this run writes none (--ci): run the tests without --ci to write it."
      : check.kind === "shared"
        ? `If ${check.agentName} is meant to take another path than the other agents, \`M3_AGENTS=${test.agent.harness}=${test.agent.model} npx jest -u\` stores its own snapshot; the other agents keep the shared one.`
        : "If the change is expected, `jest -u` updates it.";
  return {
    pass: false,
    message: () =>
      `${context.utils.matcherHint(`.${name}`, "result", hint === name ? "" : "hint")}\n\n` +
      `Snapshot name: \`${check.key}\`, ${which}\n\n` +
      (check.expected === undefined
        ? `Received:\n${context.utils.RECEIVED_COLOR(text)}`
        : (context.utils.diff(check.expected, text, {
            expand: false,
            aAnnotation: "Snapshot",
            bAnnotation: "Received",
          }) ?? "")) +
      `\n\n${fix}`,
  };
}
