// The native stdio relay as an installed package meets it: built elsewhere (another
// machine's binary, "Exec format error"), built from another version of its source, or not
// built at all (npm skipped the install script). Each time the Node relay takes over, a real
// MCP server still answers through it with its calls recorded, the notice is given once
// (not again by the processes started afterwards, as Jest's workers are after the global
// setup), and `jest-m3 doctor` says which relay a run will use and why.
//
// The packages are copied as npm lays them out (node_modules/@jest-m3/core, node_modules/
// jest-m3) so that the relay's binary can be replaced without touching this repository's.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO, removeTempDir, SHIPPING_SERVER } from "./support/user-project";

const CORE = join(REPO, "packages", "core");
const JEST_M3 = join(REPO, "packages", "jest-m3");
const NOTICE = "jest-m3: stdio servers run behind the Node relay";

let root: string;
let installedCore: string;
let binary: string;

/** Copies a package's published parts; its dependencies are links to this repository's. */
function install(from: string, to: string, parts: readonly string[]): void {
  mkdirSync(to, { recursive: true });
  for (const part of parts) cpSync(join(from, part), join(to, part), { recursive: true });
  const manifest = JSON.parse(readFileSync(join(from, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (name.startsWith("@jest-m3/")) continue;
    const link = join(root, "node_modules", name);
    mkdirSync(join(link, ".."), { recursive: true });
    rmSync(link, { force: true, recursive: true });
    symlinkSync(join(REPO, "node_modules", name), link);
  }
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "m3-relay-fallback-"));
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "user-project" }));
  installedCore = join(root, "node_modules", "@jest-m3", "core");
  install(CORE, installedCore, ["package.json", "dist", "src/wire/native"]);
  install(JEST_M3, join(root, "node_modules", "jest-m3"), [
    "package.json",
    "bin",
    "dist",
    "jest-preset.js",
  ]);
  // What the user installs besides: Jest, and TypeScript (ts-jest's peer).
  for (const name of ["jest", "typescript"]) {
    symlinkSync(join(REPO, "node_modules", name), join(root, "node_modules", name));
  }
  binary = join(installedCore, "dist", "wire", "native", "stdio-relay");
});
afterAll(() => removeTempDir(root));

/** A session through the relay, in a fresh process: two captures, one tool call each. */
const SESSION = `
const { spawnSync } = require("node:child_process");
const core = "@jest-m3/core";
const { MCPTestKit } = require(core);
const { stdioRelayLaunch } = require(core + "/runner");
const { connectCaptured } = require(core + "/testing");
(async () => {
  const kit = new MCPTestKit({ env: {} });
  const sessions = [];
  for (const weight of [2, 5]) {
    const { capture, servers } = await kit.capture({
      servers: [{ name: "shipping", command: process.execPath, args: [${JSON.stringify(SHIPPING_SERVER)}] }],
    });
    const client = await connectCaptured(servers[0]);
    const result = await client.callTool({ name: "shipping_quote", arguments: { weight_kg: weight, zone: "local" } });
    await client.close();
    await capture.flush();
    sessions.push({
      relay: servers[0].command,
      answer: result.structuredContent,
      calls: capture.trace.toolCalls.map((call) => ({ tool: call.tool, status: call.status })),
    });
  }
  await kit[Symbol.asyncDispose]();
  const later = spawnSync(process.execPath, ["-e", "require(" + JSON.stringify(core + "/runner") + ").stdioRelayLaunch()"], { encoding: "utf8" });
  process.stdout.write(JSON.stringify({ sessions, launch: stdioRelayLaunch(), laterStderr: later.stderr }));
})().catch((error) => { console.error(error); process.exit(1); });
`;

interface SessionRun {
  sessions: { relay: string; answer: unknown; calls: unknown[] }[];
  launch: { kind: string; reason: string; fallback: boolean };
  laterStderr: string;
}

function runSession(env: Record<string, string> = {}): { run: SessionRun; stderr: string } {
  const child = spawnSync(process.execPath, ["-e", SESSION], {
    cwd: root,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", ...env },
    timeout: 60_000,
  });
  if (child.status !== 0) throw new Error(`the session failed (${child.status}):\n${child.stderr}`);
  return { run: JSON.parse(child.stdout) as SessionRun, stderr: child.stderr };
}

function doctorLines(env: Record<string, string> = {}): string[] {
  const child = spawnSync(
    process.execPath,
    [join(root, "node_modules", "jest-m3", "bin", "jest-m3.js"), "doctor"],
    { cwd: root, encoding: "utf8", env: { PATH: process.env.PATH ?? "", ...env }, timeout: 60_000 },
  );
  expect(child.stderr).not.toContain(NOTICE);
  const lines = child.stdout.split("\n");
  const start = lines.indexOf("stdio relay");
  expect(start).toBeGreaterThan(0);
  const end = lines.indexOf("", start);
  return lines.slice(start + 1, end);
}

/** Replaces the installed binary (a copy of this repository's, unless `make` writes one). */
function replaceBinary(make: (file: string) => void): void {
  rmSync(binary, { force: true });
  copyFileSync(join(CORE, "dist", "wire", "native", "stdio-relay"), binary);
  make(binary);
  chmodSync(binary, 0o755);
}

const answered = (run: SessionRun): void => {
  expect(run.sessions).toEqual([
    {
      relay: process.execPath,
      answer: { amount: 9, currency: "USD" },
      calls: [{ tool: "shipping_quote", status: "success" }],
    },
    {
      relay: process.execPath,
      answer: expect.objectContaining({ currency: "USD" }),
      calls: [{ tool: "shipping_quote", status: "success" }],
    },
  ]);
};

const notices = (stderr: string): number => stderr.split(NOTICE).length - 1;

test("this machine's own build is used, silently, and doctor says so", () => {
  replaceBinary(() => undefined);
  const { run, stderr } = runSession();
  expect(run.launch).toMatchObject({ kind: "native", fallback: false });
  expect(run.sessions.map((session) => session.relay)).toEqual([binary, binary]);
  expect(notices(stderr)).toBe(0);
  expect(doctorLines()).toEqual([
    "  native relay: built from this version of its source, and runs on this machine",
  ]);
});

test("a binary built for another machine: the Node relay serves, and says so once", () => {
  // The same program for another processor (ELF e_machine = AArch64, or x86-64 on an ARM
  // machine): what a tarball packed elsewhere used to carry.
  replaceBinary((file) => {
    const bytes = readFileSync(file);
    const other = bytes.readUInt16LE(18) === 0xb7 ? 0x3e : 0xb7;
    bytes.writeUInt16LE(other, 18);
    writeFileSync(file, bytes);
  });
  const { run, stderr } = runSession();
  answered(run);
  expect(run.launch).toMatchObject({ kind: "node", fallback: true });
  expect(run.launch.reason).toMatch(/^the native relay does not run on this machine \(/);
  expect(run.launch.reason).toMatch(/\(it is a Linux (arm64|x64) binary, this machine is /);
  expect(notices(stderr)).toBe(1);
  expect(stderr).toContain(`${NOTICE}: ${run.launch.reason}.`);
  expect(stderr).toMatch(/to build the native relay: node \S*build-relay\.cjs/);
  expect(run.laterStderr).toBe("");
  const [relay, fix] = doctorLines();
  expect(relay).toBe(`  ! Node relay: ${run.launch.reason}`);
  expect(fix).toMatch(
    /^ {4}the evidence is the same; to use the native relay: node \S*build-relay\.cjs/,
  );
});

test("a binary built from another version of the source: the Node relay, once", () => {
  replaceBinary((file) => writeFileSync(file, "#!/bin/sh\necho 0000000000000000\n"));
  const { run, stderr } = runSession();
  answered(run);
  expect(run.launch.reason).toMatch(/built from another version of its source/);
  expect(notices(stderr)).toBe(1);
  expect(doctorLines()[0]).toBe(`  ! Node relay: ${run.launch.reason}`);
});

test("no binary (install scripts skipped): the Node relay, once; M3_STDIO_RELAY=node says nothing", () => {
  rmSync(binary, { force: true });
  const { run, stderr } = runSession();
  answered(run);
  expect(run.launch.reason).toMatch(/the native relay was not built \(install scripts skipped/);
  expect(notices(stderr)).toBe(1);
  expect(doctorLines()[0]).toBe(`  ! Node relay: ${run.launch.reason}`);

  const asked = runSession({ M3_STDIO_RELAY: "node" });
  answered(asked.run);
  expect(asked.run.launch).toMatchObject({ kind: "node", fallback: false });
  expect(notices(asked.stderr)).toBe(0);
  expect(doctorLines({ M3_STDIO_RELAY: "node" })[0]).toBe("  Node relay: M3_STDIO_RELAY=node");
});

/** A test file of a user's project: one call through the relay, with the call recorded. */
const RELAY_TEST = `const { MCPTestKit } = require("@jest-m3/core");
const { connectCaptured } = require("@jest-m3/core/testing");
test("a call through the relay", async () => {
  require("node:fs").writeFileSync(__filename + ".pid", String(process.pid));
  const kit = new MCPTestKit({ env: {} });
  try {
    const { capture, servers } = await kit.capture({
      servers: [{ name: "shipping", command: process.execPath, args: [${JSON.stringify(SHIPPING_SERVER)}] }],
    });
    const client = await connectCaptured(servers[0]);
    const result = await client.callTool({ name: "shipping_quote", arguments: { weight_kg: 2, zone: "local" } });
    await client.close();
    await capture.flush();
    expect(result.structuredContent).toEqual({ amount: 9, currency: "USD" });
    expect(capture.trace.toolCalls.map((call) => call.status)).toEqual(["success"]);
    expect(servers[0].command).toBe(process.execPath);
  } finally {
    await kit[Symbol.asyncDispose]();
  }
});
`;

test("a Jest run on two workers gives the notice once, from its global setup", () => {
  rmSync(binary, { force: true });
  writeFileSync(join(root, "jest.config.js"), 'module.exports = { preset: "jest-m3" };\n');
  mkdirSync(join(root, "tests"), { recursive: true });
  writeFileSync(join(root, "tests", "first.test.js"), RELAY_TEST);
  writeFileSync(join(root, "tests", "second.test.js"), RELAY_TEST);
  const child = spawnSync(
    process.execPath,
    [
      join(root, "node_modules", "jest", "bin", "jest.js"),
      "--maxWorkers=2",
      "--ci",
      `--cacheDirectory=${join(root, ".jest-cache")}`,
    ],
    {
      cwd: root,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", CI: "1" },
      timeout: 180_000,
    },
  );
  const output = `${child.stdout}${child.stderr}`;
  expect({ status: child.status, passed: /Tests: +2 passed, 2 total/.test(output) }).toEqual({
    status: 0,
    passed: true,
  });
  // Two workers, each with its own relay check: the notice still came once.
  const pids = ["first", "second"].map((name) =>
    readFileSync(join(root, "tests", `${name}.test.js.pid`), "utf8"),
  );
  expect(new Set(pids).size).toBe(2);
  expect(notices(output)).toBe(1);
});
