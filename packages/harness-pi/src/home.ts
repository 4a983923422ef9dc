import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { HarnessLaunch } from "@jest-m3/core/harness";
import {
  agentNodeCacheEnvironment,
  createHomes,
  type BridgeConfig,
} from "@jest-m3/core/adapter-kit";
import { BRIDGE_CONFIG_VARIABLE } from "./bridge-config.js";
import { modelsJson, PLACEHOLDER_KEY, PLACEHOLDER_KEY_VARIABLE, settingsJson } from "./config.js";
import type { ResolvedPiOptions } from "./options.js";

/** The isolated folders of one Pi process, inside a fresh folder owned by the kit. */
export interface PiHome {
  /** The fresh `HOME` (and `XDG_*` under it). */
  readonly home: string;
  /** `PI_CODING_AGENT_DIR`: `models.json`, `settings.json`, what Pi writes (`auth.json`). */
  readonly agentDir: string;
  /** `TMPDIR` (Pi's extension compiler caches there). */
  readonly tmp: string;
  /** Where the bridge extension writes which servers connected. */
  readonly statusFile: string;
}

/**
 * Creates the folders of one Pi process in `root` and writes Pi's configuration: the
 * provider in `models.json` (its key as a variable NAME, see {@link modelsJson}) when there
 * is one, and `settings.json`. Nothing written holds a credential or a server's environment.
 */
export async function createPiHome(
  root: string,
  launch: Pick<HarnessLaunch, "provider" | "model">,
  options: ResolvedPiOptions,
): Promise<PiHome> {
  const folders = { home: "home", agentDir: "agent", tmp: "tmp" };
  const home: PiHome = {
    ...(await createHomes(root, folders)),
    statusFile: join(root, "bridge-status.json"),
  };
  if (launch.provider) {
    await writeFile(
      join(home.agentDir, "models.json"),
      JSON.stringify(modelsJson(launch.provider, launch.model), null, 2),
      { mode: 0o600, flag: "wx" },
    );
  }
  await writeFile(
    join(home.agentDir, "settings.json"),
    JSON.stringify(settingsJson(options), null, 2),
    {
      mode: 0o600,
      flag: "wx",
    },
  );
  return home;
}

/**
 * Pi's environment: the launch's (an allow-list of the parent's plus the mapped
 * credentials) with the fresh folders, no network of Pi's own (offline, no version check,
 * no telemetry), the bridge's configuration (read and removed by the extension at load),
 * and the placeholder key when the provider needs none. Never the parent's whole environment.
 */
export function piEnvironment(
  launchEnv: Readonly<Record<string, string>>,
  home: PiHome,
  provider: HarnessLaunch["provider"],
  bridge: BridgeConfig | undefined,
): Record<string, string> {
  const env: Record<string, string> = {
    ...launchEnv,
    // Pi runs on Node 22: its compiled code is kept for the next start.
    ...agentNodeCacheEnvironment(launchEnv),
    HOME: home.home,
    XDG_CONFIG_HOME: join(home.home, ".config"),
    XDG_DATA_HOME: join(home.home, ".local", "share"),
    XDG_STATE_HOME: join(home.home, ".local", "state"),
    XDG_CACHE_HOME: join(home.home, ".cache"),
    TMPDIR: home.tmp,
    PI_CODING_AGENT_DIR: home.agentDir,
    PI_OFFLINE: "1",
    PI_TELEMETRY: "0",
    PI_SKIP_VERSION_CHECK: "1",
    NO_COLOR: "1",
    // A warm Pi starts without servers: each session binds its own (see warm-pool.ts).
    ...(bridge ? { [BRIDGE_CONFIG_VARIABLE]: JSON.stringify(bridge) } : {}),
  };
  if (process.platform === "win32") env.USERPROFILE = home.home;
  if (provider && provider.envKey === undefined) env[PLACEHOLDER_KEY_VARIABLE] = PLACEHOLDER_KEY;
  return env;
}
