/**
 * Where a planted secret could have leaked: the files of the kit's temporary folders (an
 * agent's home, its configuration, its logs) and what an MCP server saw in its environment
 * (the env server's log).
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MCPTestKit } from "@jest-m3/core";

/**
 * Every file under `dir` (symbolic links not followed) that contains one of `needles`; none
 * when `dir` is gone.
 */
export function filesContaining(dir: string, needles: string | readonly string[]): string[] {
  const wanted = typeof needles === "string" ? [needles] : needles;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) continue;
    if (stat.isDirectory()) found.push(...filesContaining(path, wanted));
    else if (stat.isFile()) {
      const bytes = readFileSync(path);
      if (wanted.some((needle) => bytes.includes(needle))) found.push(path);
    }
  }
  return found;
}

/** The temporary folders the kit made so far (removed when it closes). */
export function kitTempDirs(kit: MCPTestKit): string[] {
  return [...(kit as unknown as { tempDirs: string[] }).tempDirs];
}

/** One JSON object a line: what the env server saw of each variable it was asked about. */
export function envLogEntries(file: string): Record<string, string | null>[] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, string | null>);
}
