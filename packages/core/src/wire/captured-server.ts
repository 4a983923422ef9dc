import { join } from "node:path";
import type { ResolvedStdioServer } from "../servers/spec.js";

/**
 * A stdio server as the harness must launch it: the relay in front of the real command.
 * Its `env` is only the server's own (the harness adds its environment around it).
 */
export type CapturedStdioServer = ResolvedStdioServer;

/** An HTTP server as the harness must reach it: the capture proxy's URL. */
export interface CapturedHttpServer {
  readonly kind: "http";
  readonly name: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** A server wrapped for capture, ready to hand to a harness. */
export type CapturedServer = CapturedStdioServer | CapturedHttpServer;

/** The relay program, shipped next to this module in core's build. */
export const STDIO_RELAY_PATH = join(__dirname, "stdio-relay.js");
