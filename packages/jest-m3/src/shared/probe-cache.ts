/**
 * The run's probe cache (`<resultsDir>/cache/probes.json`): answers of readiness probes that
 * a harness keys by what they depend on (an agent binary's path, size and modification
 * time), kept across runs so a run whose agents have not changed does not start each of
 * them only to ask what it supports. `M3_PROBE_CACHE=off` probes everything every run.
 *
 * Global setup probes the configured harnesses with it, and each worker the selections
 * global setup did not probe (other options, another executable), through its runtime.
 *
 * The file is the runner's, not the user's: a damaged or foreign one is ignored and
 * replaced; entries unused for {@link MAX_AGE_MS} are dropped when it is written.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ProbeCache } from "@jest-m3/core/harness";

/** The file under the results folder. */
export const PROBE_CACHE_FILE = join("cache", "probes.json");
/** An entry no run has used for this long is dropped. */
export const MAX_AGE_MS = 14 * 24 * 3600 * 1000;
const FORMAT = "jest-m3 probe cache 1";

interface Entry {
  readonly value: unknown;
  /** When a run last stored or used it (ms since the epoch). */
  usedAt: number;
}

/** A probe cache over one file, with what this run took from it. */
export interface FileProbeCache extends ProbeCache {
  /** Keys whose answer came from the file in this run. */
  readonly hits: ReadonlySet<string>;
  /** Writes the file when a run stored or used an answer (atomically: a temp file renamed). */
  save(): void;
}

function readEntries(file: string): Map<string, Entry> {
  try {
    const json = JSON.parse(readFileSync(file, "utf8")) as {
      format?: unknown;
      entries?: Record<string, { value?: unknown; usedAt?: unknown }>;
    };
    if (json.format !== FORMAT || typeof json.entries !== "object" || json.entries === null) {
      return new Map();
    }
    const entries = new Map<string, Entry>();
    for (const [key, entry] of Object.entries(json.entries)) {
      if (typeof entry?.usedAt === "number" && entry.value !== undefined) {
        entries.set(key, { value: entry.value, usedAt: entry.usedAt });
      }
    }
    return entries;
  } catch {
    // Missing, unreadable or damaged: start empty (the next save replaces it).
    return new Map();
  }
}

/**
 * The probe cache of `resultsDir`, or `undefined` when `M3_PROBE_CACHE=off` (or `0`, `false`).
 * `now` is for tests.
 */
export function openProbeCache(
  resultsDir: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  now: () => number = Date.now,
): FileProbeCache | undefined {
  if (/^(off|0|false|no)$/i.test(env.M3_PROBE_CACHE ?? "")) return undefined;
  const file = join(resultsDir, PROBE_CACHE_FILE);
  const entries = readEntries(file);
  const hits = new Set<string>();
  let changed = false;
  return {
    hits,
    get(key) {
      const entry = entries.get(key);
      if (!entry || now() - entry.usedAt > MAX_AGE_MS) return undefined;
      hits.add(key);
      entry.usedAt = now();
      changed = true;
      return entry.value;
    },
    set(key, value) {
      // Plain JSON only: what cannot be written is not kept.
      const json = JSON.stringify(value) as string | undefined;
      if (json === undefined) return;
      entries.set(key, { value: JSON.parse(json) as unknown, usedAt: now() });
      changed = true;
    },
    save() {
      if (!changed) return;
      // What other processes of the run (the workers) stored since this one read the file
      // is kept: each writes the file whole, and this one's entries win.
      const merged = readEntries(file);
      for (const [key, entry] of entries) merged.set(key, entry);
      const kept: Record<string, Entry> = {};
      for (const [key, entry] of merged) {
        if (now() - entry.usedAt <= MAX_AGE_MS) kept[key] = entry;
      }
      mkdirSync(dirname(file), { recursive: true });
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, `${JSON.stringify({ format: FORMAT, entries: kept }, null, 1)}\n`);
      renameSync(temp, file);
      changed = false;
    },
  };
}
