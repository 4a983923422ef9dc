/**
 * An agent's isolated homes, and the user's login copied into them: fresh folders (mode
 * 0700) for the homes an agent writes into, a check that a login file is a regular file
 * (never a symbolic link), and a copy that refuses a link also when one appears between
 * the check and the copy (the copy is mode 0600 and never overwrites).
 *
 * @example
 * ```ts
 * const homes = await createHomes(await launch.tempDir("m3-my-agent-"), { home: "home", config: "my-agent" });
 * const login = regularFile(join(hostConfig, "auth.json"));
 * if (login.ok) await copyRegularFile(join(hostConfig, "auth.json"), join(homes.config, "auth.json"));
 * ```
 */
import { constants, lstatSync } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { join } from "node:path";

/** Whether a file may be copied: a regular file, or why not (`missing` when there is none). */
export type FileCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly missing: boolean; readonly reason: string };

/** Checks, without reading it, that `path` is a regular file and not a symbolic link. */
export function regularFile(path: string): FileCheck {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return { ok: false, missing: true, reason: `no file at ${path}` };
  }
  if (stat.isSymbolicLink()) {
    const reason = `${path} is a symbolic link; the harness copies only regular files`;
    return { ok: false, missing: false, reason };
  }
  if (!stat.isFile()) return { ok: false, missing: false, reason: `${path} is not a regular file` };
  return { ok: true };
}

/**
 * Copies the regular file `source` to the new file `target` (mode 0600). A symbolic link is
 * refused (opened without following links), and an existing `target` is never overwritten.
 */
export async function copyRegularFile(source: string, target: string): Promise<void> {
  const noFollow = constants.O_NOFOLLOW ?? 0;
  const from = await open(source, constants.O_RDONLY | noFollow);
  try {
    if (!(await from.stat()).isFile()) throw new Error(`${source} is not a regular file`);
    const contents = await from.readFile();
    const to = await open(target, "wx", 0o600);
    try {
      await to.writeFile(contents);
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}

/**
 * Creates one fresh folder (mode 0700) per entry of `folders` inside `root`, a fresh
 * directory the caller owns, and returns their paths under the same names.
 */
export async function createHomes<K extends string>(
  root: string,
  folders: Readonly<Record<K, string>>,
): Promise<Record<K, string>> {
  const homes = {} as Record<K, string>;
  for (const name of Object.keys(folders) as K[]) {
    homes[name] = join(root, folders[name]);
    await mkdir(homes[name], { mode: 0o700 });
  }
  return homes;
}

/**
 * An agent's environment in its fresh home: the launch's (an allow-list of the parent's
 * plus the mapped credentials), `HOME` (and on Windows `USERPROFILE`) the fresh home, and
 * the agent's own `variables` (its config folder, its switches) on top. Never the parent's
 * whole environment.
 */
export function homeEnvironment(
  launchEnv: Readonly<Record<string, string>>,
  home: string,
  variables: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = { ...launchEnv, ...variables, HOME: home };
  if (process.platform === "win32") env.USERPROFILE = home;
  return env;
}
