import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { accessSync, constants, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { INHERITED_ENV } from "../processes/environment.js";
import { STDIO_RELAY_PATH } from "./captured-server.js";

/**
 * The process-level switch between the relays: `native`, `node`, or unset (native when it
 * was built, else Node). Meant for tests of both and for diagnosis, not for users.
 */
export const STDIO_RELAY_VARIABLE = "M3_STDIO_RELAY";

/** The native relay, built at install time by `src/wire/native/build-relay.cjs` (never shipped built). */
export const NATIVE_RELAY_PATH = join(__dirname, "native", "stdio-relay");
const NATIVE_SOURCE = join(__dirname, "..", "..", "src", "wire", "native", "stdio-relay.c");

/** How a stdio server's relay is started: the program and the arguments before the relay's own. */
export interface StdioRelayLaunch {
  /** `native`: the C relay (about 1 MB, a millisecond to start); `node`: stdio-relay.js. */
  readonly kind: "native" | "node";
  readonly command: string;
  readonly args: readonly string[];
  /** Why this relay was chosen. */
  readonly reason: string;
  /** The Node relay stands in for a native one that cannot be used here (not when asked for). */
  readonly fallback: boolean;
}

/**
 * The command that builds the native relay on this machine (it needs a C compiler), with
 * the script's path relative to the working folder.
 *
 * @example
 * ```ts
 * console.log(`to use the native relay: ${nativeRelayBuildCommand()}`);
 * ```
 */
export function nativeRelayBuildCommand(): string {
  const script = relative(process.cwd(), join(NATIVE_SOURCE, "..", "build-relay.cjs"));
  return `node ${script.startsWith(".") ? script : `./${script}`}`;
}

const ELF_MACHINES: Readonly<Record<number, string>> = {
  0x03: "ia32",
  0x28: "arm",
  0x3e: "x64",
  0xb7: "arm64",
  0xf3: "riscv64",
};

/** What kind of binary `file` is when its header says it is not for this machine, else undefined. */
function foreignBinary(file: string): string | undefined {
  let head: Buffer;
  try {
    head = readFileSync(file).subarray(0, 20);
  } catch {
    return undefined;
  }
  if (head.length >= 20 && head.readUInt32BE(0) === 0x7f454c46) {
    const machine = ELF_MACHINES[head.readUInt16LE(18)] ?? `machine ${head.readUInt16LE(18)}`;
    if (process.platform !== "linux" || machine !== process.arch) {
      return `it is a Linux ${machine} binary, this machine is ${process.platform} ${process.arch}`;
    }
    return undefined;
  }
  const magic = head.length >= 4 ? head.readUInt32BE(0) : 0;
  if ([0xfeedfacf, 0xcffaedfe, 0xcafebabe, 0xfeedface, 0xcefaedfe].includes(magic)) {
    if (process.platform !== "darwin") {
      return `it is a macOS binary, this machine is ${process.platform} ${process.arch}`;
    }
  }
  return undefined;
}

/**
 * Why the native relay cannot be used here, or undefined when it can: it must exist, run on
 * this machine (a binary built elsewhere fails with "Exec format error"), and say it was
 * built from this version of its source (it prints the hash it was compiled with).
 */
function nativeProblem(): string | undefined {
  if (process.platform === "win32") return "the native relay is not built on Windows";
  try {
    accessSync(NATIVE_RELAY_PATH, constants.X_OK);
  } catch {
    return "the native relay was not built (install scripts skipped, or no C compiler at install time)";
  }
  let expected: string;
  try {
    expected = createHash("sha256").update(readFileSync(NATIVE_SOURCE)).digest("hex");
  } catch (error) {
    return `the native relay's source is missing (${(error as Error).message})`;
  }
  const probe = spawnSync(NATIVE_RELAY_PATH, ["--source-sha256"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 10_000,
    env: {},
  });
  if (probe.error !== undefined || probe.status !== 0) {
    const how =
      probe.error?.message ??
      (probe.signal ? `signal ${probe.signal}` : `exit ${String(probe.status)}`);
    const foreign = foreignBinary(NATIVE_RELAY_PATH);
    const said = (probe.stderr || "").trim().split("\n")[0] ?? "";
    return `the native relay does not run on this machine (${foreign ?? `${how}${said ? `: ${said}` : ""}`})`;
  }
  // A binary built from another version of the source would speak another relay.
  if (probe.stdout.trim() !== expected) {
    return "the native relay was built from another version of its source";
  }
  return undefined;
}

/**
 * Set once the Node relay's stand-in notice was given, so that the processes this one starts
 * (Jest's workers, after the global setup) do not give it again.
 */
export const STDIO_RELAY_NOTICE_VARIABLE = "M3_STDIO_RELAY_NOTICE_GIVEN";

const chosen = new Map<string, StdioRelayLaunch>();

/**
 * The relay a stdio server would get, and why, without saying anything (for `doctor`): the
 * native one when it runs here and was built from this version of its source, else the
 * Node one. `M3_STDIO_RELAY=node` forces Node; `=native` fails when the native relay is
 * unusable. The check runs once per process.
 *
 * @throws Error when `native` is asked for and cannot be used.
 * @example
 * ```ts
 * const { kind, reason } = stdioRelayChoice();
 * console.log(`stdio relay: ${kind} (${reason})`);
 * ```
 */
export function stdioRelayChoice(
  choice: string | undefined = process.env[STDIO_RELAY_VARIABLE],
): StdioRelayLaunch {
  const key = choice ?? "";
  const known = chosen.get(key);
  if (known) return known;
  const node = (reason: string, fallback: boolean): StdioRelayLaunch => ({
    kind: "node",
    command: process.execPath,
    args: [STDIO_RELAY_PATH],
    reason,
    fallback,
  });
  let launch: StdioRelayLaunch;
  if (choice === "node") {
    launch = node(`${STDIO_RELAY_VARIABLE}=node`, false);
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
            reason: "built from this version of its source, and runs on this machine",
            fallback: false,
          }
        : node(problem, process.platform !== "win32");
  }
  chosen.set(key, launch);
  return launch;
}

/**
 * The relay to put in front of a stdio server ({@link stdioRelayChoice}). When the native
 * relay cannot be used, this says so once on stderr (once for the process and the ones it
 * starts afterwards) and the Node relay serves: same frames, same guarantees, about 40 MB
 * and 40 ms more per server.
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
  const launch = stdioRelayChoice(choice);
  if (launch.fallback && process.env[STDIO_RELAY_NOTICE_VARIABLE] === undefined) {
    process.env[STDIO_RELAY_NOTICE_VARIABLE] = "1";
    process.stderr.write(
      `jest-m3: stdio servers run behind the Node relay: ${launch.reason}. The evidence is the same; each server costs about 40 MB and 40 ms more (to build the native relay: ${nativeRelayBuildCommand()}).\n`,
    );
  }
  return launch;
}
