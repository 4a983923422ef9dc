/**
 * Gemini CLI, OpenCode, Kilo Code and Qwen Code are warm by default: a session whose
 * selection leaves `warm` out runs on the worker's warm pool, except a session with built-in
 * tools, which opens cold on a process of its own (the agent's own tools would act in a
 * process other sessions share). `warm: false` is always cold; Copilot CLI stays cold by
 * default.
 *
 * End to end, on the real binaries, each default is proven by jest-m3's fault matrices:
 * `agent-matrix-<agent>-warm.test.ts` leaves the option out, and every cell checks that the
 * kit spawned no agent and that every relay ran under one warm agent of the pool (8 sessions
 * at once included); `agent-matrix-<agent>.test.ts` (and, for Kilo Code, kilo-session.test.ts)
 * selects `warm: false` and checks one agent process per session, gone at its close.
 */
import {
  copilotProfile,
  geminiProfile,
  kiloProfile,
  opencodeProfile,
  qwenProfile,
  type AcpProfile,
  type ResolvedCommonOptions,
} from "@jest-m3/harness-acp";

test("warm by default on Gemini CLI, OpenCode, Kilo Code and Qwen Code only; builtinTools or warm: false is cold", () => {
  const resolve = (
    profile: AcpProfile<ResolvedCommonOptions>,
    options: Record<string, unknown>,
  ): boolean => profile.resolveOptions(options).warm;
  for (const [harness, tool] of [
    [geminiProfile, "read_file"],
    [opencodeProfile, "read"],
    [kiloProfile, "read"],
    [qwenProfile, "read_file"],
  ] as const) {
    expect(resolve(harness, {})).toBe(true);
    expect(resolve(harness, { builtinTools: [tool] })).toBe(false);
    expect(resolve(harness, { builtinTools: [tool], warm: true })).toBe(true);
    expect(resolve(harness, { warm: false })).toBe(false);
  }
  expect(resolve(copilotProfile as AcpProfile<ResolvedCommonOptions>, {})).toBe(false);
});
