/**
 * A launch for a readiness probe that starts the agent as a session would: a fresh folder
 * holding a `workspace`, and the launch a session of the selection gets without MCP
 * servers, credentials or a tool policy, so the adapter plans the probe's start with its
 * own session code (homes, settings, command line). Its `tempDir` makes folders inside the
 * fresh folder, its `spawn` starts processes that are stopped when the probe ends, its
 * `record` keeps nothing; then the folder is removed, whatever happened.
 *
 * @example
 * ```ts
 * const answer = await withProbeLaunch("m3-my-agent-probe-", selection, async (launch) => {
 *   const home = await launch.tempDir("home-");
 *   const client = new MyClient(launch.spawn({ label: "my-agent (readiness probe)", command, args, env: { HOME: home }, cwd: launch.workspace }));
 *   return client.request("initialize");
 * });
 * ```
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HarnessLaunch, SelectionSpec } from "../harness/contract.js";
import { childEnvironment, ManagedProcess } from "../processes/managed-process.js";

/** How long a probe's process still running when the probe ends gets to exit, before signals. */
const PROBE_STOP_GRACE_MS = 1000;

/**
 * Runs `probe` with a launch of `selection` in a fresh folder named `prefix...` in the
 * system's temporary folder (see the module's description).
 *
 * @param signal - The launch's signal (default: one that never aborts), e.g. to withdraw a
 * probe whose answer no longer counts.
 */
export async function withProbeLaunch<T>(
  prefix: string,
  selection: SelectionSpec,
  probe: (launch: HarnessLaunch) => Promise<T>,
  signal: AbortSignal = new AbortController().signal,
): Promise<T> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  const spawned: ManagedProcess[] = [];
  try {
    const workspace = join(root, "workspace");
    await mkdir(workspace);
    return await probe({
      model: selection.model,
      selection,
      config: {},
      servers: [],
      toolPolicy: new Map(),
      workspace,
      env: childEnvironment(),
      credentials: [],
      ...(selection.provider ? { provider: selection.provider } : {}),
      signal,
      tempDir: (name) => mkdtemp(join(root, name)),
      spawn: (process) => {
        const child = new ManagedProcess(process);
        spawned.push(child);
        return child;
      },
      record: () => undefined,
    });
  } finally {
    await Promise.all(spawned.map((child) => child.stop(PROBE_STOP_GRACE_MS)));
    await rm(root, { recursive: true, force: true });
  }
}
