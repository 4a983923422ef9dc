/**
 * Where things are: the repository root, the example's shipping server and this package's
 * fixture servers (absolute paths, so a server starts whatever its cwd).
 */
import { join, resolve } from "node:path";

/** The repository root. */
export const REPO_ROOT = resolve(__dirname, "../../..");

/** The example's shipping MCP server (one tool, shipping_quote, readOnlyHint). */
export const SHIPPING_SCRIPT = join(REPO_ROOT, "examples/shipping/shipping-server.mjs");

/** The fixture servers of this package, by file name. */
export type FixtureName =
  | "ledger-server.mjs"
  | "named-tools-server.mjs"
  | "env-server.mjs"
  | "start-log-server.mjs"
  | "fault-server.mjs"
  | "echo-secret-server.mjs";

/** The absolute path of one of this package's fixture servers. */
export function fixturePath(name: FixtureName): string {
  return join(__dirname, "../fixtures", name);
}
