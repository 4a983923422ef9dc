/**
 * A local OAuth-protected MCP server for tests, from the MCP SDK's own server-side pieces:
 * its auth router (authorization server metadata, dynamic registration, authorize, token,
 * revoke) over its in-memory demo provider, the protected resource metadata, and an MCP
 * endpoint behind its bearer middleware. One Express app on 127.0.0.1, stateless MCP.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { DemoInMemoryAuthProvider } from "@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js";
import {
  mcpAuthRouter,
  getOAuthProtectedResourceMetadataUrl,
} from "@modelcontextprotocol/sdk/server/auth/router.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

// Express (the SDK's dependency, which its auth router is built on) ships no types, and
// @types/express is not installed: only what this file uses.
type Request = IncomingMessage & { path: string; body: unknown };
type Middleware = (request: Request, response: ServerResponse, next: () => void) => void;
interface ExpressApp {
  use(handler: unknown): void;
  post(path: string, ...handlers: unknown[]): void;
  listen(port: number, host: string, ready: () => void): Server;
}
const express = createRequire(__filename)("express") as { (): ExpressApp; json(): unknown };

/** The running server, what it saw, and how to stop it. */
export interface OAuthMcpServer {
  /** The MCP endpoint. */
  readonly url: string;
  readonly provider: DemoInMemoryAuthProvider;
  /** Each request's method and path, with its Authorization header's scheme only. */
  readonly requests: { method: string; path: string; auth: string | null }[];
  /** Client ids the MCP tool saw in the verified token. */
  readonly callers: string[];
  close(): Promise<void>;
}

/** Starts the server on a free loopback port. */
export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const provider = new DemoInMemoryAuthProvider();
  const app = express();
  const requests: OAuthMcpServer["requests"] = [];
  const callers: string[] = [];
  const log: Middleware = (request, _response, next) => {
    const header = request.headers.authorization;
    requests.push({
      method: request.method ?? "",
      path: request.path,
      auth: header ? header.split(" ")[0]! : null,
    });
    next();
  };
  app.use(log);
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no port");
  const origin = `http://127.0.0.1:${address.port}`;
  const mcpUrl = new URL("/mcp", origin);
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(origin),
      resourceServerUrl: mcpUrl,
      scopesSupported: ["mcp:tools"],
    }),
  );
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
  });
  app.post("/mcp", express.json(), bearer, async (request: Request, response: ServerResponse) => {
    const mcp = new McpServer({ name: "vault", version: "1.0.0" });
    mcp.registerTool("whoami", { description: "Says which OAuth client called" }, (extra) => {
      const clientId = extra.authInfo?.clientId ?? "nobody";
      callers.push(clientId);
      return { content: [{ type: "text", text: `client ${clientId}` }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response, request.body);
  });
  return {
    url: mcpUrl.href,
    provider,
    requests,
    callers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
