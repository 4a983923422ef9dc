/**
 * `@jest-m3/harness-claude-code`: the Claude Code harness for jest-m3. It drives the real
 * Claude Code CLI in stream-json mode: a long-lived `claude --print` process that a Jest
 * worker keeps warm for one session after another (or one per session, `warm: false`),
 * in a fresh HOME and CLAUDE_CONFIG_DIR, with no host settings or MCP configuration, the
 * session's MCP servers given exactly as the wire capture wrapped them, the tools outside
 * the allow-list hidden from the model and any permission prompt answered from the
 * allow-list, and Claude Code's `tool_use` / `tool_result` reported as evidence for core to
 * pair with the wire.
 *
 * The kit finds it by name (`harness: "claude-code"`, or `claude`, `claude_code`); import
 * it only to register it explicitly.
 *
 * @example
 * ```ts
 * import { MCPTestKit } from "jest-m3";
 * import claudeCode from "@jest-m3/harness-claude-code";
 *
 * await using kit = new MCPTestKit({ env: {}, harnesses: [claudeCode] });
 * const [agent] = kit.agents([{ harness: "claude-code", models: ["scripted"], provider }]);
 * const readiness = await agent.readiness(); // executable, version, CLI, credentials
 * ```
 *
 * @packageDocumentation
 */
import { defineHarness, type HarnessDefinition } from "@jest-m3/core/harness";
import { HARNESS_NAME } from "./errors.js";
import { claudeCodeReadiness, claudeCodeReadinessKey } from "./readiness.js";
import { openClaudeCodeSession } from "./open.js";

/**
 * The Claude Code harness: `readiness()` checks the executable, its version, its command
 * line and the credentials; `open()` gives the session a warm Claude Code process, or
 * starts one for it.
 */
export const claudeCodeHarness: HarnessDefinition = defineHarness({
  name: HARNESS_NAME,
  aliases: ["claude", "claude_code"],
  dialects: ["anthropic-messages"],
  reportedUsage: "the usage of Claude Code's result message",
  readiness: claudeCodeReadiness,
  readinessKey: claudeCodeReadinessKey,
  open: openClaudeCodeSession,
});

export default claudeCodeHarness;

export { ClaudeCodeSession } from "./session.js";
export {
  resolveClaudeExecutable,
  runIsolated,
  readClaudeVersion,
  TESTED_CLAUDE_CODE_VERSION,
  EXECUTABLE_VARIABLE,
} from "./executable.js";
/** What a lookup or a version probe found (core's types, as every harness has them). */
export type { ExecutableLookup, ExecutableSource, VersionProbe } from "@jest-m3/core/adapter-kit";
export { resolveClaudeCodeOptions, type ClaudeCodeOptions } from "./options.js";
export { claudeArgs, claudeCodeNaming } from "./config.js";
export {
  credentialsCapability,
  findHostLogin,
  copyHostLogin,
  createHomes,
  HOST_CONFIG_VARIABLE,
  PLACEHOLDER_KEY,
  type HostLogin,
  type ClaudeHomes,
} from "./home.js";
export { mcpToolName } from "./reported-calls.js";
export { stopWarmClaudeCode, warmClaudeCodePids } from "./warm-pool.js";
export { PROTOCOL_SURFACE } from "./protocol.js";
export {
  ClaudeControlError,
  ClaudeCodeExited,
  ClaudeCodeTimeout,
  InvalidClaudeCodeOptions,
} from "./errors.js";
