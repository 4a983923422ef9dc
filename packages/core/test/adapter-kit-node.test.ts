/**
 * The adapter kit's version parsing of Node's `v22.23.5`, and its agent Node part: the lookup
 * order (option, variable, installed copy, PATH, this process), explicit Nodes that are too
 * old or missing reported with both versions and the fix, the readiness capability naming
 * the Node found and the one needed, and the installer finding the shared copy present.
 * Real files and real processes (small scripts that print a version, the installed Node).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  agentNodeCandidates,
  agentNodeCapability,
  findAgentNode,
  nodeVersion,
  parseVersion,
  runtimeNode,
  type AgentNodeSearch,
} from "@jest-m3/core/adapter-kit";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "m3-kit-node-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const search: AgentNodeSearch = {
  agent: "My CLI",
  minimum: "22.19.0",
  variable: "M3_MY_NODE",
  installedBy: "my-adapter",
  option: "the my-cli option node",
};

function fakeNode(name: string, printed: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\necho ${printed}\n`);
  chmodSync(path, 0o755);
  return path;
}

test("parseVersion reads a version after a letter (Node's v22.23.5), never inside a longer number", () => {
  expect(parseVersion("v22.23.5")).toEqual({
    major: 22,
    minor: 23,
    patch: 5,
    prerelease: null,
    text: "22.23.5",
  });
  expect(parseVersion("my-cli v0.24.4-rc.1 (build)")?.text).toBe("0.24.4-rc.1");
  expect(parseVersion("1.2.3.4")?.text).toBe("1.2.3");
  expect(parseVersion("version 12")).toBeNull();
  expect(parseVersion(process.version)?.major).toBe(Number(process.versions.node.split(".")[0]));
});

test("nodeVersion runs the binary and parses its v-prefixed answer", async () => {
  const path = fakeNode("node-v", "v22.20.1");
  const version = await nodeVersion(path);
  expect(typeof version === "string" ? version : version.text).toBe("22.20.1");
});

test("an explicit Node that is too old or missing is reported with both versions and the fix, never replaced", async () => {
  const old = fakeNode("node20", "v20.11.0");
  const tooOld = await findAgentNode(search, old, {});
  expect(tooOld.found).toBe(false);
  const reason = tooOld.found ? "" : tooOld.reason;
  expect(reason).toContain(
    `the my-cli option node names Node 20.11.0 (${old}), but My CLI needs Node ≥ 22.19.0`,
  );
  expect(reason).toContain("npm rebuild my-adapter");
  expect(reason).toContain("M3_MY_NODE");

  const missing = await findAgentNode(search, undefined, { M3_MY_NODE: join(dir, "nothing") });
  expect(missing.found ? "" : missing.reason).toContain(
    `M3_MY_NODE names ${JSON.stringify(join(dir, "nothing"))}, which is not an executable file`,
  );

  const configured = fakeNode("node22", "v22.19.0");
  const fromConfig = await findAgentNode(search, undefined, { M3_MY_NODE: configured });
  expect(fromConfig).toMatchObject({ found: true, path: configured, source: "config" });
  expect(agentNodeCandidates(search, { M3_MY_NODE: configured })[0]).toBe(configured);
});

test("without an explicit Node, the shared installed copy is found and readiness names it and the minimum", async () => {
  const installed = runtimeNode();
  expect(installed).toBeDefined();
  // PATH without any node: the installed copy is what is found.
  const lookup = await findAgentNode(search, undefined, {}, dir);
  expect(lookup).toMatchObject({ found: true, minimum: "22.19.0" });
  if (!lookup.found) throw new Error(lookup.reason);
  expect(lookup.version.major).toBeGreaterThanOrEqual(22);
  const capability = agentNodeCapability(lookup, "My CLI");
  expect(capability.status).toBe("ready");
  expect(capability.reason).toMatch(
    /^Node 2\d\.\d+\.\d+ \(.+, from (runtime|package)\); My CLI needs Node ≥ 22\.19\.0$/,
  );
  // The binary found really is that Node.
  expect(execFileSync(lookup.path, ["--version"], { encoding: "utf8" }).trim()).toBe(
    `v${lookup.version.text}`,
  );
});

test("a minimum no Node at hand meets is unavailable, listing what was found", async () => {
  const lookup = await findAgentNode({ ...search, minimum: "99.0.0" }, undefined, {}, dir);
  expect(lookup.found).toBe(false);
  const capability = agentNodeCapability(lookup, "My CLI");
  expect(capability.status).toBe("unavailable");
  expect(capability.reason).toContain("My CLI needs Node ≥ 99.0.0, and found only Node ");
  expect(capability.reason).toContain(`Node ${process.versions.node} (${process.execPath})`);
});

test("the installer finds the shared copy present and installs nothing", () => {
  const output = execFileSync(
    process.execPath,
    [
      "-e",
      'process.stdout.write(require("@jest-m3/core/agent-node-installer").installAgentNode({ agent: "My CLI", minimum: "22.19.0", packageName: "my-adapter" }))',
    ],
    { encoding: "utf8", env: { PATH: dir } },
  );
  expect(output).toBe("present");
});
