/**
 * An agent's isolated home in the layout most agents read their settings from: `HOME`, the
 * four XDG folders and a temp folder, fresh inside one folder the caller owns; the
 * environment that points the agent at them and nowhere else (on Windows also
 * `USERPROFILE`, `APPDATA`, `LOCALAPPDATA`, `TEMP` and `TMP`), so it finds none of the
 * host's settings, caches or state; and a settings file written into it that only its owner
 * can read.
 *
 * @example
 * ```ts
 * const home = await createIsolatedHome(await launch.tempDir("m3-my-agent-"));
 * await writeJsonFile(join(home.configHome, "my-agent"), "settings.json", { telemetry: false });
 * const env = isolatedEnvironment(launch.env, home, { NO_COLOR: "1" });
 * ```
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createHomes } from "./agent-home.js";

/** The isolated folders of one agent process, all inside one fresh folder. */
export interface IsolatedHome {
  /** The fresh folder everything below lives in. */
  readonly root: string;
  /** `HOME` (and `USERPROFILE` on Windows). */
  readonly home: string;
  readonly configHome: string;
  readonly dataHome: string;
  readonly cacheHome: string;
  readonly stateHome: string;
  /** `TMPDIR`. */
  readonly tmp: string;
}

/**
 * Creates HOME, the XDG folders and TMPDIR (each mode 0700) inside `root`, a fresh folder
 * the caller owns (the kit's temporary folder of a session, a warm pool's folder).
 */
export async function createIsolatedHome(root: string): Promise<IsolatedHome> {
  const folders = await createHomes(root, {
    home: "home",
    configHome: "config",
    dataHome: "data",
    cacheHome: "cache",
    stateHome: "state",
    tmp: "tmp",
  });
  return { root, ...folders };
}

/**
 * An agent's environment: the launch's (an allow-list of the parent's plus the mapped
 * credentials), with every folder an agent reads settings from or writes state to moved
 * into the fresh home, then the agent's own variables (`extra`). Never the parent's whole
 * environment.
 */
export function isolatedEnvironment(
  launchEnv: Readonly<Record<string, string>>,
  home: IsolatedHome,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {
    ...launchEnv,
    HOME: home.home,
    XDG_CONFIG_HOME: home.configHome,
    XDG_DATA_HOME: home.dataHome,
    XDG_CACHE_HOME: home.cacheHome,
    XDG_STATE_HOME: home.stateHome,
    TMPDIR: home.tmp,
  };
  if (process.platform === "win32") {
    env.USERPROFILE = home.home;
    env.APPDATA = home.configHome;
    env.LOCALAPPDATA = home.dataHome;
    env.TEMP = home.tmp;
    env.TMP = home.tmp;
  }
  return { ...env, ...extra };
}

/**
 * Writes `value` as `<dir>/<name>` (indented JSON, mode 0600), making `dir` (mode 0700)
 * first when it is missing. Returns the file's path.
 */
export async function writeJsonFile(dir: string, name: string, value: unknown): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, name);
  await writeFile(file, JSON.stringify(value, null, 2), { mode: 0o600 });
  return file;
}
