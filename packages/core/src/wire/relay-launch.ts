import { createHash } from "node:crypto";
import { accessSync, constants, readFileSync } from "node:fs";
import { join } from "node:path";
import { INHERITED_ENV } from "../processes/environment.js";
import { STDIO_RELAY_PATH } from "./captured-server.js";

/**
 * The process-level switch between the relays: `native`, `node`, or unset (native when it
 * was built, else Node). Meant for tests of both and for diagnosis, not for users.
 */
export const STDIO_RELAY_VARIABLE = "M3_STDIO_RELAY";

/** The native relay, built at install time by `src/wire/native/build-relay.cjs`. */
export const NATIVE_RELAY_PATH = join(__dirname, "native", "stdio-relay");
const NATIVE_STAMP = join(__dirname, "native", "stdio-relay.sha256");
const NATIVE_SOURCE = join(__dirname, "..", "..", "src", "wire", "native", "stdio-relay.c");

/** How a stdio server's relay is started: the program and the arguments before the relay's own. */
export interface StdioRelayLaunch {
  /** `native`: the C relay (about 1 MB, a millisecond to start); `node`: stdio-relay.js. */
  readonly kind: "native" | "node";
  readonly command: string;
  readonly args: readonly string[];
  /** Why this relay was chosen. */
  readonly reason: string;
}

function nativeProblem(): string | undefined {
  if (process.platform === "win32") return "the native relay is not built on Windows";
  try {
    accessSync(NATIVE_RELAY_PATH, constants.X_OK);
  } catch {
    return `the native relay was not built (no C compiler at install time?): ${NATIVE_RELAY_PATH}`;
  }
  let stamp: string;
  let source: Buffer;
  try {
    stamp = readFileSync(NATIVE_STAMP, "utf8").trim();
    source = readFileSync(NATIVE_SOURCE);
  } catch (error) {
    return `the native relay's build stamp or source is missing (${(error as Error).message})`;
  }
  // A binary built from another version of the source would speak another relay.
  if (createHash("sha256").update(source).digest("hex") !== stamp) {
    return "the native relay was built from another version of its source (rebuild it: node packages/core/src/wire/native/build-relay.cjs)";
  }
  return undefined;
}

const chosen = new Map<string, StdioRelayLaunch>();

/**
 * The relay to put in front of a stdio server: the native one when it was built from this
 * version of its source, else the Node one (same frames, same guarantees; about 40 MB and
 * 40 ms more per server). `M3_STDIO_RELAY=node` forces Node; `=native` fails when the
 * native relay is unusable.
 *
 * @throws Error when `native` is asked for and cannot be used.
 * @example
 * ```ts
 * const relay = stdioRelayLaunch();
 * spawn(relay.command, [...relay.args, "--channel", socket, "--server", "s", "--", "node", "s.mjs"]);
 * ```
 */
export function stdioRelayLaunch(
  choice: string | undefined = process.env[STDIO_RELAY_VARIABLE],
): StdioRelayLaunch {
  const key = choice ?? "";
  const known = chosen.get(key);
  if (known) return known;
  const node = (reason: string): StdioRelayLaunch => ({
    kind: "node",
    command: process.execPath,
    args: [STDIO_RELAY_PATH],
    reason,
  });
  let launch: StdioRelayLaunch;
  if (choice === "node") {
    launch = node(`${STDIO_RELAY_VARIABLE}=node`);
  } else {
    const problem = nativeProblem();
    if (problem !== undefined && choice === "native") {
      throw new Error(`${STDIO_RELAY_VARIABLE}=native, but ${problem}`);
    }
    launch =
      problem === undefined
        ? {
            kind: "native",
            command: NATIVE_RELAY_PATH,
            // The environment allow-list lives in one place: it travels on the command line.
            args: ["--inherit", JSON.stringify(INHERITED_ENV)],
            reason: "built at install time from this version of its source",
          }
        : node(problem);
  }
  chosen.set(key, launch);
  return launch;
}
