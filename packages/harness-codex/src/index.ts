/**
 * `@jest-m3/harness-codex`: the Codex harness for jest-m3. It drives the real Codex CLI
 * through `codex app-server` (JSON-RPC on stdio): one app-server and one thread per session,
 * in a fresh CODEX_HOME and HOME, with the session's MCP servers given exactly as the wire
 * capture wrapped them, tool approvals answered from the session's allow-list, and Codex's
 * `mcpToolCall` items reported as evidence for core to pair with the wire.
 *
 * The kit finds it by name (`harness: "codex"`); import it only to register it explicitly.
 *
 * @example
 * ```ts
 * import { MCPTestKit } from "jest-m3";
 * import { startScriptedModel } from "@jest-m3/scripted-model";
 *
 * await using model = await startScriptedModel(script);
 * await using kit = new MCPTestKit({ env: {} });
 * const [agent] = kit.agents([{ harness: "codex", models: ["scripted"], provider: model.provider }]);
 * const readiness = await agent.readiness(); // executable, version, app-server, credentials
 * ```
 *
 * @packageDocumentation
 */
import { defineHarness, type HarnessDefinition } from "@jest-m3/core/harness";
import { codexReadiness, codexReadinessKey } from "./readiness.js";
import { openCodexSession } from "./open.js";

/**
 * The Codex harness: `readiness()` checks the executable, its version, the app-server and
 * the credentials; `open()` starts one `codex app-server` with one thread.
 */
export const codexHarness: HarnessDefinition = defineHarness({
  name: "codex",
  reportedUsage: "Codex's thread/tokenUsage/updated notifications",
  readiness: codexReadiness,
  readinessKey: codexReadinessKey,
  open: openCodexSession,
});

export default codexHarness;

export { resolveCodexExecutable, TESTED_CODEX_VERSION, EXECUTABLE_VARIABLE } from "./executable.js";
/** What a lookup found (core's type, as every harness has it). */
export type { ExecutableLookup, ExecutableSource } from "@jest-m3/core/adapter-kit";
export type { CodexOptions } from "./options.js";
export { HOST_HOME_VARIABLE } from "./home.js";
export { stopWarmAppServers } from "./warm-pool.js";
export { PROTOCOL_SURFACE } from "./protocol.js";
export { AppServerExited, AppServerTimeout, CodexRpcError, InvalidCodexOptions } from "./errors.js";
