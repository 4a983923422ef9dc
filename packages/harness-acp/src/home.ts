import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createHomes } from "@jest-m3/core/adapter-kit";

/** The isolated folders of one agent process, all inside one fresh temporary folder. */
export interface AgentHome {
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

/** Creates HOME, the XDG folders and TMPDIR inside `root`, a fresh folder owned by the kit. */
export async function createAgentHome(root: string): Promise<AgentHome> {
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
 * into the fresh home, then the profile's own variables. Never the parent's whole
 * environment.
 */
export function agentEnvironment(
  launchEnv: Readonly<Record<string, string>>,
  home: AgentHome,
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

/** Writes `value` as `<dir>/<name>` (JSON, readable by its owner only), making `dir`. */
export async function writeSettings(dir: string, name: string, value: unknown): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, name);
  await writeFile(file, JSON.stringify(value, null, 2), { mode: 0o600 });
  return file;
}

/**
 * Marks `plugin` as installed in an OpenCode-family agent's config folder
 * (`<configHome>/<app>`), so the agent does not install it from the public npm registry at
 * each start: OpenCode 1.18 runs an npm install of its plugin package into every config
 * folder whose lock file does not list it (64 MB, about 4 CPU-seconds and network calls per
 * process, in the background of its start). With default plugins off and no plugin configured, nothing
 * loads it; the folder holds an empty `node_modules` and the lock file that lists it.
 */
export async function skipPluginInstall(
  home: AgentHome,
  app: string,
  plugin: string,
): Promise<void> {
  const dir = join(home.configHome, app);
  await mkdir(join(dir, "node_modules"), { recursive: true, mode: 0o700 });
  const lock = { packages: { "": { dependencies: { [plugin]: "*" } } } };
  await writeFile(join(dir, "package-lock.json"), JSON.stringify(lock), { mode: 0o600 });
}
