import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { IsolatedHome } from "@jest-m3/core/adapter-kit";

/**
 * The isolated home of one agent process (HOME, the XDG folders and TMPDIR in one fresh
 * folder), its environment and its settings files: the adapter kit's, under this package's
 * names.
 */
export {
  createIsolatedHome as createAgentHome,
  isolatedEnvironment as agentEnvironment,
  writeJsonFile as writeSettings,
  type IsolatedHome as AgentHome,
} from "@jest-m3/core/adapter-kit";

/**
 * Marks `plugin` as installed in an OpenCode-family agent's config folder
 * (`<configHome>/<app>`), so the agent does not install it from the public npm registry at
 * each start: OpenCode 1.18 runs an npm install of its plugin package into every config
 * folder whose lock file does not list it (64 MB, about 4 CPU-seconds and network calls per
 * process, in the background of its start). With default plugins off and no plugin configured, nothing
 * loads it; the folder holds an empty `node_modules` and the lock file that lists it.
 */
export async function skipPluginInstall(
  home: IsolatedHome,
  app: string,
  plugin: string,
): Promise<void> {
  const dir = join(home.configHome, app);
  await mkdir(join(dir, "node_modules"), { recursive: true, mode: 0o700 });
  const lock = { packages: { "": { dependencies: { [plugin]: "*" } } } };
  await writeFile(join(dir, "package-lock.json"), JSON.stringify(lock), { mode: 0o600 });
}
