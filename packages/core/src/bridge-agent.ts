/**
 * `@jest-m3/core/bridge-agent`: the adapter kit's MCP bridge as it runs inside an agent's
 * own process (an extension the agent loads, as Pi's): read the bridge's configuration
 * from the environment, connect to exactly the servers it names, list the tools the
 * allow-list lets through. It loads the MCP SDK's client and nothing else of the kit, so
 * an agent's start does not pay for the whole `@jest-m3/core/adapter-kit`.
 *
 * Every name here is also exported by `@jest-m3/core/adapter-kit`: the same functions.
 *
 * @example
 * ```ts
 * import { connectBridge, takeBridgeConfig } from "@jest-m3/core/bridge-agent";
 * const config = takeBridgeConfig("MY_AGENT_BRIDGE");
 * const bridge = config && (await connectBridge(config));
 * ```
 *
 * @packageDocumentation
 */
export {
  connectBridge,
  takeBridgeConfig,
  type Bridge,
  type BridgedTool,
} from "./adapter-kit/mcp-bridge-agent.js";
export type { BridgeConfig } from "./adapter-kit/mcp-bridge.js";
