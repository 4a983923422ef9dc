import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import type { StdioServer } from "@jest-m3/core";

export const repoRoot = join(__dirname, "..", "..", "..", "..");
export const shippingScript = join(repoRoot, "examples", "shipping", "shipping-server.mjs");
export const faultScript = join(__dirname, "..", "fixtures", "fault-server.mjs");

/** The shipping example server over stdio. */
export const shipping: StdioServer = {
  name: "shipping",
  command: process.execPath,
  args: [shippingScript],
};

/** The fault server over stdio, with the given flags. */
export function faultServer(...flags: string[]): StdioServer {
  return { name: "faulty", command: process.execPath, args: [faultScript, ...flags] };
}

/**
 * The shipping server listening on Streamable HTTP on a free loopback port. `stop()` kills
 * it and waits until it has closed (its pipes too), so no test file ends with it still
 * attached to the worker (a live child keeps Jest's worker from exiting: "A worker process
 * has failed to exit gracefully"). The harness packages' tests use this one too.
 */
export async function startHttpShipping(): Promise<{
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}> {
  const child = spawn(process.execPath, [shippingScript, "--http", "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening (\S+)/.exec(seen);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`shipping --http exited with ${code}: ${seen}`)));
  });
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await closed;
    },
  };
}
