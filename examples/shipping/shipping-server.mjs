#!/usr/bin/env node
// The shipping MCP server: one tool, shipping_quote, served over stdio (default) or over
// Streamable HTTP (`--http [--port N]`, prints "listening <url>" once it accepts requests).
//
// Set SHIPPING_CALL_LOG to a file path to append every tools/call the server receives as
// one JSON line: the ground truth that evidence tests compare the kit's records against.
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** Rate per kilogram for each zone, in USD. */
export const RATES = { local: 2, regional: 3.5, international: 7 };
const BASE_FEE = 5;

function toolError(text) {
  return { isError: true, content: [{ type: "text", text }] };
}

/** Builds a fresh MCP server with the shipping_quote tool. */
export function createShippingServer() {
  const server = new McpServer({ name: "shipping", version: "1.0.0" });
  server.registerTool(
    "shipping_quote",
    {
      title: "Shipping quote",
      description:
        "Quote the price of shipping a parcel. weight_kg must be greater than 0; zone is local, regional or international.",
      inputSchema: { weight_kg: z.number(), zone: z.enum(["local", "regional", "international"]) },
      outputSchema: { amount: z.number(), currency: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ weight_kg, zone }) => {
      if (process.env.SHIPPING_CALL_LOG) {
        appendFileSync(
          process.env.SHIPPING_CALL_LOG,
          JSON.stringify({ tool: "shipping_quote", arguments: { weight_kg, zone } }) + "\n",
        );
      }
      if (!(weight_kg > 0)) return toolError(`weight_kg must be greater than 0, got ${weight_kg}`);
      const rate = RATES[zone];
      if (rate === undefined) {
        return toolError(`zone must be one of local, regional, international, got "${zone}"`);
      }
      const amount = BASE_FEE + weight_kg * rate;
      return {
        content: [{ type: "text", text: "Quote calculated" }],
        structuredContent: { amount, currency: "USD" },
      };
    },
  );
  return server;
}

async function serveStdio() {
  await createShippingServer().connect(new StdioServerTransport());
}

/**
 * Serves Streamable HTTP on 127.0.0.1:`port` (0: a free one), one server from `create` per
 * MCP session, and prints "listening <url>".
 */
export async function serveHttp(port, create = createShippingServer) {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    try {
      const sessionId = req.headers["mcp-session-id"];
      let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
      let body;
      if (req.method === "POST") {
        const chunks = [];
        for await (const chunk of req) chunks.push(chunk);
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      }
      if (!transport) {
        if (req.method !== "POST" || !isInitializeRequest(body)) {
          res.writeHead(400, { "content-type": "application/json" });
          res.end(
            JSON.stringify({
              jsonrpc: "2.0",
              id: null,
              error: { code: -32000, message: "No valid session id" },
            }),
          );
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => sessions.set(id, transport),
        });
        transport.onclose = () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await create().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    }
  });
  await new Promise((resolve) => http.listen(port, "127.0.0.1", resolve));
  const address = http.address();
  process.stdout.write(`listening http://127.0.0.1:${address.port}/mcp\n`);
  const stop = () => http.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const args = process.argv.slice(2);
  if (args.includes("--http")) {
    const portIndex = args.indexOf("--port");
    const port = portIndex >= 0 ? Number(args[portIndex + 1]) : 0;
    await serveHttp(port);
  } else {
    await serveStdio();
  }
}
