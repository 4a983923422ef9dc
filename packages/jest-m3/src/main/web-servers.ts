/**
 * Global setup's part of `webServers`: each configured server started (side by side) before
 * any test, its process recorded in the run's ledger (so a run killed by a signal, or swept
 * later, stops it too), its URL handed to the workers, and its stop left to global teardown.
 */
import type { WebServer } from "@jest-m3/core";
import { appendRecord, processStartTicks } from "../shared/run-ledger.js";
import { RUN_ENV } from "../shared/hand-off.js";
import type { WebServerEntry } from "../shared/web-servers.js";
import { SHARED_SERVICES } from "./shared-services.js";

/**
 * Starts the run's web servers and hands their URLs to the workers. When one fails, those
 * already started are stopped before the error (which names the server and holds its
 * stderr) ends the run.
 */
export async function startRunWebServers(
  entries: readonly WebServerEntry[],
  runDir: string,
): Promise<void> {
  if (entries.length === 0) {
    delete process.env[RUN_ENV.webServers];
    return;
  }
  // Loaded only when the configuration asks for a server: a run that needs none (a quick
  // run that never imports the kit) must not load the kit and the MCP SDK.
  const { startWebServer } = await import("@jest-m3/core");
  const started: WebServer[] = [];
  const results = await Promise.allSettled(
    entries.map(async (entry) => {
      const server = await startWebServer(entry);
      started.push(server);
      if (server.pid !== undefined)
        appendRecord(runDir, "processes", {
          pid: server.pid,
          startTicks: processStartTicks(server.pid),
          label: `web server ${entry.name}`,
          command: entry.command,
        });
      return server;
    }),
  );
  const failed = results.find((result) => result.status === "rejected");
  if (failed) {
    await Promise.all(started.map((server) => server.close()));
    throw failed.reason;
  }
  SHARED_SERVICES.push(async () => {
    await Promise.all(started.map((server) => server.close()));
  });
  process.env[RUN_ENV.webServers] = JSON.stringify(
    Object.fromEntries(entries.map((entry) => [entry.name, entry.url])),
  );
}
