/**
 * The workspace tests' MCP server (fixtures/workspace-files-server.mjs): it writes, deletes
 * and renames files in its working directory, the session's workspace, and logs each
 * operation.
 */
import { join } from "node:path";
import type { StdioServer } from "jest-m3";

/** The server's script. */
export const FILES_SERVER = join(__dirname, "..", "fixtures", "workspace-files-server.mjs");

/** The server as a session's `server`: named `files`, in the workspace, logging to `log`. */
export function filesServer(log: string): StdioServer {
  return {
    name: "files",
    command: process.execPath,
    args: [FILES_SERVER],
    env: { FILES_LOG: log },
    cwd: "workspace",
  };
}
