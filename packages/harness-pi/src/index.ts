/**
 * `@jest-m3/harness-pi`: the Pi harness for jest-m3. It drives the real Pi coding agent
 * (`@earendil-works/pi-coding-agent`) in RPC mode: a long-lived `pi --mode rpc` process on
 * a Node new enough for Pi, warm by default (one process per worker serves one session
 * after another, each binding its own servers; `options: { warm: false }`, and a session
 * with `builtinTools` or a workspace, get one per session), in a fresh HOME and agent dir whose
 * `models.json` names the provider (its key as a variable name, never the value), with the
 * session's MCP servers reached through an extension this package ships, which connects to
 * exactly the servers the wire capture wrapped and offers only the allowed tools. Pi's
 * `tool_execution_start` / `tool_execution_end` are reported as evidence for core to pair
 * with the wire.
 *
 * The kit finds it by name (`harness: "pi"`); import it only to register it explicitly.
 *
 * @example
 * ```ts
 * import { MCPTestKit } from "jest-m3";
 * import pi from "@jest-m3/harness-pi";
 *
 * await using kit = new MCPTestKit({ env: {}, harnesses: [pi] });
 * const [agent] = kit.agents([{ harness: "pi", models: ["scripted-model"], provider }]);
 * const readiness = await agent.readiness(); // executable, version, Node, RPC start, credentials
 * ```
 *
 * @packageDocumentation
 */
import { defineHarness, type HarnessDefinition } from "@jest-m3/core/harness";
import { PI_DIALECTS } from "./config.js";
import { HARNESS_NAME, piReadiness, piReadinessKey } from "./readiness.js";
import { openPiSession } from "./session.js";

/**
 * The Pi harness: `readiness()` checks Pi, its version, the Node it needs, its command line
 * and RPC start, and the credentials; `open()` starts one Pi process for the session, or
 * takes a warm one.
 */
export const piHarness: HarnessDefinition = defineHarness({
  name: HARNESS_NAME,
  dialects: PI_DIALECTS,
  readiness: piReadiness,
  readinessKey: piReadinessKey,
  open: openPiSession,
});

export default piHarness;

export { piReadiness, credentialsCapability } from "./readiness.js";
export { openPiSession, PiSession, BRIDGE_EXTENSION } from "./session.js";
export {
  resolvePiExecutable,
  piPackageFacts,
  findNode,
  TESTED_PI_VERSION,
  PI_PACKAGE,
  EXECUTABLE_VARIABLE,
  PI_NODE_VARIABLE,
  SUGGESTED_NODE_VERSION,
  type PiLookup,
  type PiPackageFacts,
  type NodeLookup,
  type NodeSource,
} from "./executable.js";
export {
  resolvePiOptions,
  PI_BUILTIN_TOOLS,
  type PiOptions,
  type ResolvedPiOptions,
} from "./options.js";
export { piArgs, modelsJson, settingsJson, PI_APIS, PI_DIALECTS } from "./config.js";
export { assignToolNames, plainToolName, hashedToolName } from "@jest-m3/core/adapter-kit";
export type { McpToolName } from "./reported-calls.js";
export { mcpToolName } from "./reported-calls.js";
export { PROTOCOL_SURFACE } from "./protocol.js";
export { InvalidPiOptions, PiCommandError, PiExited, PiTimeout } from "./errors.js";
export { stopWarmPi, warmPiPids } from "./warm-pool.js";
