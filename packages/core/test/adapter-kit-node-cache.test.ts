/**
 * The adapter kit's compile cache for agents on Node (`agentNodeCacheEnvironment`): a Node 22
 * given its environment really writes its compiled code into this user's folder (mode 0700),
 * the next start reads it; the user's own `NODE_COMPILE_CACHE` wins, `M3_NODE_COMPILE_CACHE=off`
 * turns it off, and a folder someone else may write to is never used. Real folders and the
 * installed Node 22 (the first the agent lookup finds: core's node-runtime/ copy here).
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  agentNodeCacheEnvironment,
  agentNodeCandidates,
  NODE_COMPILE_CACHE_VARIABLE,
  nodeVersion,
} from "@jest-m3/core/adapter-kit";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "m3-node-cache-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Files under `dir`, recursively. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));

test("a Node 22 started with it keeps its compiled code in this user's folder, mode 0700", async () => {
  const env = agentNodeCacheEnvironment({}, { TMPDIR: root });
  const dir = env.NODE_COMPILE_CACHE!;
  expect(dir.startsWith(root)).toBe(true);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  // The first Node 22 the agent lookup finds (an agent's Node: core's node-runtime/ copy here).
  let node: string | undefined;
  for (const candidate of agentNodeCandidates({ variable: "M3_UNSET_NODE" }, {})) {
    const version = await nodeVersion(candidate);
    if (typeof version !== "string" && version.major >= 22) {
      node = candidate;
      break;
    }
  }
  if (!node)
    throw new Error("no Node 22 found: run npm install (it puts one in core's node-runtime/)");
  const script = join(root, "agent.js");
  writeFileSync(
    script,
    `module.exports = ${JSON.stringify("x".repeat(2000))};\nconsole.log("ran");\n`,
  );
  const run = () =>
    execFileSync(node!, [script], {
      env: { PATH: process.env.PATH ?? "", ...env },
      encoding: "utf8",
    });
  expect(run()).toBe("ran\n");
  const written = filesUnder(dir);
  expect(written.length).toBeGreaterThan(0);
  // The next start reads what the first wrote (the same entries, none added).
  expect(run()).toBe("ran\n");
  expect(filesUnder(dir)).toEqual(written);
});

test("the user's own NODE_COMPILE_CACHE wins; M3_NODE_COMPILE_CACHE=off turns it off", () => {
  const config = { TMPDIR: root };
  expect(agentNodeCacheEnvironment({ NODE_COMPILE_CACHE: "/theirs" }, config)).toEqual({});
  expect(
    agentNodeCacheEnvironment({}, { ...config, [NODE_COMPILE_CACHE_VARIABLE]: "off" }),
  ).toEqual({});
  expect(Object.keys(agentNodeCacheEnvironment({}, config))).toEqual(["NODE_COMPILE_CACHE"]);
});

test("a folder others may write to is never used", () => {
  const uid = process.getuid?.() ?? "user";
  const planted = join(root, `jest-m3-node-compile-cache-${uid}`);
  mkdirSync(planted);
  chmodSync(planted, 0o777);
  expect(agentNodeCacheEnvironment({}, { TMPDIR: root })).toEqual({});
});
