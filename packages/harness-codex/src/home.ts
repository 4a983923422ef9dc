import { constants, lstatSync } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

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
  let stat;
  try {
    stat = lstatSync(authFile);
  } catch {
    return {
      usable: false,
      reason: `no Codex login at ${authFile} (run \`codex login\`, or give the selection a provider such as the scripted model's)`,
    };
  }
  if (stat.isSymbolicLink()) {
    return {
      usable: false,
      reason: `${authFile} is a symbolic link; the harness copies only a regular auth.json file`,
    };
  }
  if (!stat.isFile()) return { usable: false, reason: `${authFile} is not a regular file` };
  return { usable: true, authFile };
}

/** Creates `CODEX_HOME` and `HOME` inside `root`, a fresh directory owned by the kit. */
export async function createHomes(root: string): Promise<CodexHomes> {
  const homes = { codexHome: join(root, "codex-home"), home: join(root, "home") };
  await mkdir(homes.codexHome, { mode: 0o700 });
  await mkdir(homes.home, { mode: 0o700 });
  return homes;
}

/**
 * Copies the user's `auth.json` into the fresh `CODEX_HOME` (mode 0600). A symbolic link is
 * refused, also when it appears between the check and the copy.
 */
export async function copyHostLogin(authFile: string, homes: CodexHomes): Promise<void> {
  const noFollow = constants.O_NOFOLLOW ?? 0;
  const source = await open(authFile, constants.O_RDONLY | noFollow);
  try {
    if (!(await source.stat()).isFile()) throw new Error(`${authFile} is not a regular file`);
    const contents = await source.readFile();
    const target = await open(join(homes.codexHome, "auth.json"), "wx", 0o600);
    try {
      await target.writeFile(contents);
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/**
 * The app-server's environment: the launch's (an allow-list of the parent's plus the mapped
 * credentials) with the fresh homes. Never the parent's whole environment.
 */
export function codexEnvironment(
  launchEnv: Readonly<Record<string, string>>,
  homes: CodexHomes,
): Record<string, string> {
  const env: Record<string, string> = {
    ...launchEnv,
    CODEX_HOME: homes.codexHome,
    HOME: homes.home,
  };
  if (process.platform === "win32") env.USERPROFILE = homes.home;
  return env;
}
