import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CapturedServer } from "../harness.js";

/**
 * A plain SDK client connected to a captured server, standing in for a harness: it
 * launches the relay command (stdio) or connects to the proxy URL (HTTP) exactly as given.
 */
export async function connectCaptured(server: CapturedServer): Promise<Client> {
  const client = new Client({ name: "stand-in-harness", version: "1.0.0" });
  if (server.kind === "stdio") {
    await client.connect(
      new StdioClientTransport({
        command: server.command,
        args: [...server.args],
        env: { ...server.env },
        cwd: server.cwd,
        stderr: "pipe",
      }),
    );
  } else {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {
        requestInit: { headers: { ...server.headers } },
      }),
    );
  }
  return client;
}
