// Warm app-servers (`options: { warm: true }`): one `codex app-server` per worker process
// and key, serving each session on its own ephemeral thread with that session's MCP
// servers, provider, workspace and approvals (the kit's shared lease). What is shared is
// only what the key says is equal: everything the app-server is started with (the
// executable, its command line, the environment with credentials included) and every file
// in its homes (the login copied into CODEX_HOME). Sessions with different credentials
// never share a process.
import { WarmAgents, type WarmStartSpec } from "@jest-m3/core/adapter-kit";
import { AppServerClient } from "./app-server-client.js";

/** What a warm app-server is started with; the key is all of it but `timeoutMs`. */
export interface WarmStart extends WarmStartSpec {
  /** How long `initialize` may take. */
  readonly timeoutMs: number;
}

/**
 * The warm app-servers. `acquire(start)`: the one for `start`'s key, started (and
 * initialized) on first use; `start.root` (a fresh folder holding the homes, as `createHomes`
 * made them) becomes its folder, or is removed when a running app-server of the same key
 * serves the session. Concurrent sessions with the same key share it, each on its own
 * thread. An unused app-server stops after 20 s; a stopped one gets 1 s to exit (the kit's
 * defaults).
 */
export const warmAppServers = new WarmAgents<AppServerClient, WarmStart>({
  label: "codex app-server (warm)",
  lease: "shared",
  client: (child) => new AppServerClient(child),
  ready: (client, start) => client.initialize({ timeoutMs: start.timeoutMs }),
});

/** Stops every warm app-server now (for tests and teardown). */
export function stopWarmAppServers(): Promise<void> {
  return warmAppServers.stopAll();
}
