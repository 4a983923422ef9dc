/**
 * What the adapter tells the MCP bridge extension (in the environment variable
 * {@link BRIDGE_CONFIG_VARIABLE}, which the extension reads and removes at once, so neither
 * Pi's tools nor its children see it), and what the extension writes back (the status file:
 * which servers connected and which tools it offered, never an environment value).
 */

/** The variable holding the {@link BridgeConfig} as JSON. */
export const BRIDGE_CONFIG_VARIABLE = "M3_PI_BRIDGE";

/**
 * The bridge's command: on a warm Pi, `/m3-bridge <BridgeConfig as JSON>` sent as a prompt
 * binds a session's servers (Pi runs the command itself: no model request, and no message in
 * the conversation). The configuration travels on Pi's stdin, never through a file.
 */
export const BRIDGE_COMMAND = "m3-bridge";

/** One server for the bridge: exactly the captured command or URL (the wire capture's). */
export type BridgeServer =
  | {
      readonly kind: "stdio";
      readonly name: string;
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string;
    }
  | {
      readonly kind: "http";
      readonly name: string;
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
    };

/** The bridge's configuration. */
export interface BridgeConfig {
  readonly servers: readonly BridgeServer[];
  /** Per server, the tools it may offer; `null` for all, a missing server for none. */
  readonly allow: Readonly<Record<string, readonly string[] | null>>;
  /** Where the bridge writes its {@link BridgeStatus}. */
  readonly statusFile: string;
  /** How long one MCP call may take, in ms. */
  readonly toolTimeoutMs: number;
  /** How long one server may take to connect and list its tools, in ms. */
  readonly startupTimeoutMs: number;
}

/** One server as the bridge found it. */
export type BridgeServerStatus =
  | {
      readonly status: "connected";
      /** Every tool the server listed. */
      readonly tools: readonly string[];
      /** The tools registered with Pi: model-facing name → MCP tool name. */
      readonly offered: Readonly<Record<string, string>>;
    }
  | {
      readonly status: "failed";
      readonly error: string;
      /** The last lines the server wrote to stderr (stdio servers). */
      readonly stderr: string;
    };

/** The status file: written once, after every server connected or failed. */
export interface BridgeStatus {
  readonly servers: Readonly<Record<string, BridgeServerStatus>>;
}

/** What the bridge keeps in a tool result's `details` (Pi keeps it local, out of the model's view). */
export interface BridgeDetails {
  readonly server: string;
  readonly tool: string;
  /** The server's own content blocks (the model may have been given the structured JSON). */
  readonly content: readonly unknown[];
  readonly structuredContent: unknown;
}
