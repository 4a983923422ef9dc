/**
 * `@jest-m3/harness-acp`: the Agent Client Protocol harness for jest-m3. One adapter over
 * ACP (the kit's JSON-RPC client, typed by `@agentclientprotocol/sdk`), three harness kinds:
 *
 * - `acp`: any ACP agent, by `options.command` and `options.args`;
 * - `gemini`: Gemini CLI (`gemini --acp`), in the `gemini` provider dialect;
 * - `opencode`: OpenCode (`opencode acp`), in the `chat-completions` dialect.
 *
 * Gemini CLI, OpenCode and Qwen Code sessions are warm by default: one process per worker
 * shared by sessions started with the same plan, each its own ACP session (OpenCode's at
 * most three at once; `options: { warm: false }`, and a session with `builtinTools` unless
 * it says `warm: true`, get one process per session).
 * The other kinds start one agent process per jest-m3 session unless `warm: true` is given
 * (`acp` never shares one). Every agent process runs in a fresh HOME, XDG
 * folders and TMPDIR, with the session's MCP servers given exactly as the wire capture wrapped
 * them, the allow-list enforced by the agent's own permission system and at the wire, and
 * the agent's `tool_call` updates reported as evidence.
 *
 * The kit finds these by name (`harness: "gemini"`); import them only to register them
 * explicitly.
 *
 * @example
 * ```ts
 * import { MCPTestKit } from "jest-m3";
 * import { startScriptedModel } from "@jest-m3/scripted-model";
 *
 * await using model = await startScriptedModel(script);
 * await using kit = new MCPTestKit({ env: {} });
 * const [gemini, opencode] = kit.agents([
 *   { harness: "gemini", models: ["scripted-1"], provider: model.providerFor("gemini") },
 *   { harness: "opencode", models: ["scripted-1"], provider: model.providerFor("chat-completions") },
 * ]);
 * ```
 *
 * @packageDocumentation
 */
// harnesses, acpHarness, geminiHarness, opencodeHarness, kiloHarness, copilotHarness,
// qwenHarness, defineAcpHarness.
export * from "./harnesses.js";
import { acpHarness } from "./harnesses.js";
export default acpHarness;

export { AcpSession } from "./session.js";
export { stopWarmAcpAgents } from "./warm-pool.js";
export { INITIALIZE_PARAMS } from "./readiness.js";
export { AcpClient, type RequestOptions, type StopSignal } from "./acp-client.js";
export { loadAcpSdk } from "./sdk.js";
export {
  resolveProfileOptions,
  type AcpAgentOptions,
  type CommonAcpOptions,
  type ProfileDefaults,
  type ResolvedCommonOptions,
} from "./options.js";
export { createAgentHome, agentEnvironment, type AgentHome } from "./home.js";
export { allowedTools } from "./config.js";
export {
  identifyCall,
  mayBeMcpTool,
  type AgentToolCall,
  type SessionTools,
} from "./reported-calls.js";
export {
  assertDistinctToolNames,
  geminiNaming,
  identifyFlattened,
  nameCollisions,
  opencodeNaming,
  serverPrefixOverlaps,
  type NameCollision,
  type PrefixOverlap,
  type ToolIdentity,
  type ToolNaming,
} from "./tool-names.js";
export {
  selectModelOption,
  type AcpProfile,
  type AgentPlan,
  type AgentRuntime,
  type EndedTurn,
  type PlanContext,
  type SessionContext,
  type TestedRange,
} from "./profiles/profile.js";
export {
  geminiProfile,
  geminiPolicy,
  identifyGeminiCall,
  GEMINI_SETTINGS,
  GEMINI_TESTED,
  GEMINI_EXECUTABLE_VARIABLE,
} from "./profiles/gemini.js";
export {
  opencodeProfile,
  opencodeConfig,
  opencodePermissions,
  identifyOpencodeCall,
  OPENCODE_TESTED,
  OPENCODE_EXECUTABLE_VARIABLE,
} from "./profiles/opencode.js";
export {
  kiloProfile,
  kiloPermissions,
  KILO_TESTED,
  KILO_EXECUTABLE_VARIABLE,
} from "./profiles/kilo.js";
export {
  copilotProfile,
  copilotNaming,
  copilotMcpConfig,
  copilotToolFlags,
  copilotDistDir,
  COPILOT_TESTED,
  COPILOT_EXECUTABLE_VARIABLE,
} from "./profiles/copilot.js";
export {
  qwenProfile,
  qwenSettings,
  QWEN_TESTED,
  QWEN_EXECUTABLE_VARIABLE,
  QWEN_NODE_VARIABLE,
} from "./profiles/qwen.js";
export { PROTOCOL_SURFACE } from "./protocol.js";
export {
  AcpRpcError,
  AgentExited,
  AgentTimeout,
  InvalidAcpOptions,
  ToolNameCollision,
} from "./errors.js";
