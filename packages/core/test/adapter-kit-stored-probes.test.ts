/**
 * The adapter kit's probes kept across runs, on a real executable: `--version` runs once per
 * binary and run, a second "run" (a fresh process map is not needed: another cache hit)
 * reads it back without running it, a replaced binary is asked again, and stored values are
 * checked by shape.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  storedCapabilities,
  storedProbeKey,
  storedVersion,
  versionAcrossRuns,
  type FoundExecutable,
} from "@jest-m3/core/adapter-kit";
import type { ProbeCache } from "@jest-m3/core/harness";

let root = "";
beforeAll(async () => void (root = await mkdtemp(join(tmpdir(), "m3-stored-probes-"))));
afterAll(() => rm(root, { recursive: true, force: true }));

/** A `--version` script that notes each run in `runs`. */
async function versionScript(version: string): Promise<FoundExecutable> {
  const path = join(root, "my-agent");
  await writeFile(
    path,
    `#!/bin/sh\necho run >> "${join(root, "runs")}"\necho "my-agent ${version}"\n`,
  );
  await chmod(path, 0o755);
  return { found: true, path, command: path, prefix: [], source: "path" };
}

async function runs(): Promise<number> {
  return (await readFile(join(root, "runs"), "utf8").catch(() => "")).split("\n").filter(Boolean)
    .length;
}

function memoryCache(): ProbeCache & { entries: Map<string, unknown> } {
  const entries = new Map<string, unknown>();
  return {
    entries,
    get: (key) => entries.get(key),
    set: (key, value) => void entries.set(key, value),
  };
}

test("a version is read once, stored, and read back; a replaced binary is asked again", async () => {
  const cache = memoryCache();
  const executable = await versionScript("1.2.3");
  const first = await versionAcrossRuns(executable, cache, "my-agent");
  expect(first).toMatchObject({ ok: true, version: { text: "1.2.3" } });
  expect(await versionAcrossRuns(executable, cache, "my-agent")).toBe(first);
  expect(await runs()).toBe(1);
  const key = storedProbeKey("my-agent:version", executable.path) as string;
  expect(storedVersion(cache.entries.get(key))).toEqual(first);

  await new Promise((resolve) => setTimeout(resolve, 20));
  const replaced = await versionScript("1.2.40");
  expect(await versionAcrossRuns(replaced, cache, "my-agent")).toMatchObject({
    version: { text: "1.2.40" },
  });
  expect(await runs()).toBe(2);
});

test("stored values are read by shape; a binary that cannot be read has no key", () => {
  expect(storedProbeKey("x", join(root, "missing"))).toBeUndefined();
  expect(storedVersion({ ok: true, version: { text: 1 }, output: "" })).toBeUndefined();
  expect(storedVersion({ ok: false, reason: "x" })).toBeUndefined();
  const stored = { a: { status: "ready" }, b: { status: "unsupported", reason: "no" } };
  expect(storedCapabilities(stored, ["a", "b"])).toEqual(stored);
  expect(storedCapabilities({ a: { status: "fine" }, b: stored.b }, ["a", "b"])).toBeUndefined();
  expect(storedCapabilities(null, ["a"])).toBeUndefined();
});
