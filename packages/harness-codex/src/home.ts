import { homedir } from "node:os";
import { join, resolve } from "node:path";
import {
  copyRegularFile,
  createHomes as createFolders,
  homeEnvironment,
  regularFile,
} from "@jest-m3/core/adapter-kit";

/** The configuration variable naming the Codex home that holds the user's login. */
export const HOST_HOME_VARIABLE = "M3_CODEX_HOME";

/** The isolated homes of one app-server. */
export interface CodexHomes {
  /** The fresh `CODEX_HOME` (config, sqlite files, the copied login). */
  readonly codexHome: string;
  /** The fresh `HOME`. */
  readonly home: string;
}

/** Whether the user's Codex login can be used. */
export type HostLogin =
  | { readonly usable: true; readonly authFile: string }
  | { readonly usable: false; readonly reason: string };

/**
 * The Codex home of the user running the tests, where `codex login` left `auth.json`:
 * `M3_CODEX_HOME`, else `CODEX_HOME`, else `HOME/.codex`, read from the kit's configuration
 * first and from this process's environment second.
 */
export function hostCodexHome(config: Readonly<Record<string, string | undefined>>): string {
  const configured = config[HOST_HOME_VARIABLE] || config.CODEX_HOME;
  if (configured) return resolve(configured);
  if (config.HOME) return join(config.HOME, ".codex");
  if (process.env.CODEX_HOME) return resolve(process.env.CODEX_HOME);
  return join(homedir(), ".codex");
}

/** Checks, without reading it, that the user's `auth.json` exists and is a regular file. */
export function findHostLogin(codexHome: string): HostLogin {
  const authFile = join(codexHome, "auth.json");
  const check = regularFile(authFile);
  if (check.ok) return { usable: true, authFile };
  return {
    usable: false,
    reason: check.missing
      ? `no Codex login at ${authFile} (run \`codex login\`, or give the selection a provider such as the scripted model's)`
      : check.reason,
  };
}

/**
 * Creates `CODEX_HOME` and `HOME` inside `root`, a fresh directory owned by the kit, with the
 * user's `auth.json` copied in when `authFile` is given (see {@link copyHostLogin}).
 */
export async function createHomes(root: string, authFile?: string): Promise<CodexHomes> {
  const homes = await createFolders(root, { codexHome: "codex-home", home: "home" });
  if (authFile !== undefined) await copyHostLogin(authFile, homes);
  return homes;
}

/**
 * Copies the user's `auth.json` into the fresh `CODEX_HOME` (mode 0600). A symbolic link is
 * refused, also when it appears between the check and the copy.
 */
export function copyHostLogin(authFile: string, homes: CodexHomes): Promise<void> {
  return copyRegularFile(authFile, join(homes.codexHome, "auth.json"));
}

/**
 * The app-server's environment: the launch's (an allow-list of the parent's plus the mapped
 * credentials) with the fresh homes. Never the parent's whole environment.
 */
export function codexEnvironment(
  launchEnv: Readonly<Record<string, string>>,
  homes: CodexHomes,
): Record<string, string> {
  return homeEnvironment(launchEnv, homes.home, { CODEX_HOME: homes.codexHome });
}
