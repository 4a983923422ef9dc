/**
 * The names the adapter and the MCP bridge extension share, beyond the adapter kit's
 * bridge (its configuration, status file and tool names: `@jest-m3/core/adapter-kit`).
 */

/**
 * The variable holding the bridge's configuration as JSON (the kit's `BridgeConfig`), which
 * the extension reads and removes at once, so neither Pi's tools nor its children see it.
 */
export const BRIDGE_CONFIG_VARIABLE = "M3_PI_BRIDGE";

/**
 * The bridge's command: on a warm Pi, `/m3-bridge <BridgeConfig as JSON>` sent as a prompt
 * binds a session's servers (Pi runs the command itself: no model request, and no message in
 * the conversation). The configuration travels on Pi's stdin, never through a file.
 */
export const BRIDGE_COMMAND = "m3-bridge";

/** What the bridge keeps in a tool result's `details` (Pi keeps it local, out of the model's view). */
export interface BridgeDetails {
  readonly server: string;
  readonly tool: string;
  /** The server's own content blocks (the model may have been given the structured JSON). */
  readonly content: readonly unknown[];
  readonly structuredContent: unknown;
}
