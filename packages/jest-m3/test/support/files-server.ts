/**
 * The workspace tests' MCP server (fixtures/workspace-files-server.mjs): it writes, deletes
 * and renames files in its working directory, the session's workspace, and logs each
 * operation; the source project a workspace copies, and the server's log read back.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MCPTestKit, StdioServer } from "jest-m3";

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

/** One operation of the server's log: what it did, in which folder, on which path. */
export interface FilesLogLine {
  readonly op: string;
  readonly cwd: string;
  readonly path: string;
  readonly from?: string;
}

/** The operations the server logged to `log`, in order (none when it wrote nothing). */
export function filesLog(log: string): FilesLogLine[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as FilesLogLine);
}

/** A workspace test's source: `files` in `project` of a new temporary folder of the kit. */
export interface SourceProject {
  /** The temporary folder. */
  readonly root: string;
  /** The project folder in it, holding `files`. */
  readonly source: string;
  /** Where the files server logs, beside the project. */
  readonly log: string;
}

/** Makes the source project of a workspace test (see {@link SourceProject}). */
export async function sourceProject(
  kit: MCPTestKit,
  prefix: string,
  files: Readonly<Record<string, string>>,
): Promise<SourceProject> {
  const root = await kit.tempDir(prefix);
  const source = join(root, "project");
  mkdirSync(source);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(source, name), text);
  return { root, source, log: join(root, "files.jsonl") };
}
