/**
 * A readiness probe run once per key in a process (kept while it succeeds) and, through the
 * runner's {@link ProbeCache}, once across runs: a successful answer is stored under a key
 * that names what it depends on (the binaries' identities), and read back next run instead
 * of starting the agent again. A failure may be the machine's moment: it is never stored.
 *
 * @example
 * ```ts
 * const probes = new Map<string, Promise<Capability>>();
 * const start = probeAcrossRuns(probes, key, { cache: context.probeCache, key, read: readyCapability }, (c) => c.status === "ready", () => startAgent());
 * ```
 */
import type { Capability, ProbeCache } from "../harness/contract.js";
import { probeOnce } from "./capabilities.js";

/** Where a probe's answer is kept across runs, and how a stored value is read back. */
export interface AcrossRuns<T> {
  readonly cache: ProbeCache | undefined;
  /** The key across runs; undefined keeps the answer in this process only. */
  readonly key: string | undefined;
  /** The stored value as an answer, or undefined when it is not one (a damaged file). */
  read(value: unknown): T | undefined;
}

/** See the module's description: `run` once per `key` in `memory`, and once across runs. */
export function probeAcrossRuns<T>(
  memory: Map<string, Promise<T>>,
  key: string,
  across: AcrossRuns<T>,
  ok: (result: T) => boolean,
  run: () => Promise<T>,
): Promise<T> {
  const cacheKey = across.cache ? across.key : undefined;
  const cached = cacheKey === undefined ? undefined : across.read(across.cache?.get(cacheKey));
  return probeOnce(
    memory,
    key,
    () => (cached ? Promise.resolve(cached) : run()),
    (result) => {
      if (ok(result) && !cached && cacheKey !== undefined) across.cache?.set(cacheKey, result);
      return ok(result);
    },
  );
}

/** A stored capability read back when it was ready (for {@link AcrossRuns.read}). */
export function readyCapability(value: unknown): Capability | undefined {
  return (value as Capability | null)?.status === "ready" ? { status: "ready" } : undefined;
}
