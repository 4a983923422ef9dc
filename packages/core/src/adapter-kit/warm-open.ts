/**
 * The start of a warm session every warm adapter shares: a fresh folder for the agent's
 * homes (the pool owns it from the acquire on, since it outlives the session, so it is not
 * one of the kit's temporary folders), the adapter's plan of the start in it (homes, login,
 * environment), a start the session tore down meanwhile refused, then the pool's lease.
 * Whatever fails is one {@link HarnessStartError} in the agent's words, and the folder is
 * removed.
 *
 * @example
 * ```ts
 * const lease = await openWarmLease({
 *   harness: "my-agent", names, signal: launch.signal, prefix: "m3-my-agent-warm-",
 *   plan: async (root) => ({ command, args, env: { ...launch.env, HOME: join(root, "home") }, root }),
 *   acquire: (start) => pool.acquire(start),
 * });
 * ```
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HarnessStartError } from "../harness/contract.js";
import { errorMessage } from "./agent-errors.js";
import type { AgentNames } from "./agent-names.js";
import { tornDown } from "./start-failure.js";

/** What {@link openWarmLease} needs: who is starting, and how the adapter plans and leases. */
export interface WarmOpening<S, L> {
  /** The harness's name in the error, e.g. `my-agent`. */
  readonly harness: string;
  /** The agent's names: "the warm <process> did not start: ...". */
  readonly names: AgentNames;
  /** The launch's signal: a session torn down before the acquire starts nothing. */
  readonly signal: AbortSignal;
  /** The folder's name prefix in the system's temporary folder, e.g. `m3-my-agent-warm-`. */
  readonly prefix: string;
  /** Plans the start in the fresh folder `root` (its homes, a copied login, the environment). */
  plan(root: string): Promise<S>;
  /** The pool's lease for the start (a reused process removes `root` itself). */
  acquire(start: S): Promise<L>;
}

/** A warm agent's lease for a session; see the module's description. */
export async function openWarmLease<S, L>(opening: WarmOpening<S, L>): Promise<L> {
  const { harness, names } = opening;
  const root = await mkdtemp(join(tmpdir(), opening.prefix));
  try {
    const start = await opening.plan(root);
    if (opening.signal.aborted) throw new HarnessStartError(harness, tornDown(names));
    return await opening.acquire(start);
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    if (error instanceof HarnessStartError) throw error;
    const words = `the warm ${names.process ?? names.agent} did not start: ${errorMessage(error)}`;
    throw new HarnessStartError(harness, words, { cause: error });
  }
}
