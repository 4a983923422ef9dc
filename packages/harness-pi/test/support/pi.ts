/**
 * What the Pi harness's tests share: the servers (the example's shipping server and the
 * ledger fixture, each logging every call it receives: the ground truth), their call logs,
 * a Pi selection on the scripted model, and process checks made with `ps`, independently
 * of the kit's own bookkeeping.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { MCPTestKit, ServerSpec, StdioServer, WireCapture } from "@jest-m3/core";
import { childEnvironment } from "@jest-m3/core/adapter-kit";
import {
  parseToolPolicy,
  type AdapterTurn,
  type HarnessEvent,
  type HarnessLaunch,
  type HarnessSession,
  type ModelProvider,
  type SelectionSpec,
} from "@jest-m3/core/harness";

/** The repository root. */
export const REPO_ROOT = resolve(__dirname, "../../../..");

/** The shipping MCP server of the example (one tool, shipping_quote). */
export function shippingServer(callLog: string, name = "shipping"): StdioServer {
  return {
    name,
    command: process.execPath,
    args: [join(REPO_ROOT, "examples/shipping/shipping-server.mjs")],
    env: { SHIPPING_CALL_LOG: callLog },
    cwd: join(REPO_ROOT, "examples/shipping"),
  };
}

/** The ledger fixture server: record_entry, erase_ledger, read_ledger, crash. */
export function ledgerServer(callLog: string, args: readonly string[] = []): StdioServer {
  return {
    name: "ledger",
    command: process.execPath,
    args: [join(__dirname, "../fixtures/ledger-server.mjs"), ...args],
    env: { LEDGER_CALL_LOG: callLog },
    cwd: REPO_ROOT,
  };
}

/** The JSON lines a server appended to its call log. */
export function callLog(file: string): { tool: string; arguments: Record<string, unknown> }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { tool: string; arguments: Record<string, unknown> });
}

/** A selection of the Pi harness with the scripted model as provider. */
export function piSelection(
  provider: ModelProvider | undefined,
  extra: Partial<SelectionSpec> = {},
): SelectionSpec {
  return {
    harness: "pi",
    model: "scripted-model",
    name: "pi:scripted-model",
    credentialEnv: {},
    ...(provider ? { provider } : {}),
    options: {},
    ...extra,
  };
}

/** True when a process with this id exists and is not a zombie, as `ps` sees it. */
export function isRunning(pid: number): boolean {
  const ps = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" });
  const state = ps.stdout.trim();
  return state !== "" && !state.startsWith("Z");
}

/** Every descendant of `pid` (children, grandchildren...), from `ps`. */
export function descendants(pid: number): number[] {
  const ps = spawnSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" });
  const children = new Map<number, number[]>();
  for (const line of ps.stdout.split("\n")) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child === undefined || parent === undefined || Number.isNaN(child)) continue;
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** The kit's processes and every descendant of them (Pi, its MCP servers, the relays). */
export function processTree(kit: MCPTestKit): number[] {
  return kit.processes.flatMap((child) => [child.pid, ...descendants(child.pid)]);
}

/** The shipping server over Streamable HTTP on a free loopback port, and how to stop it. */
export async function startHttpShipping(): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [join(REPO_ROOT, "examples/shipping/shipping-server.mjs"), "--http", "--port", "0"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise<string>((done, fail) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += String(chunk);
      const found = /listening (\S+)/.exec(out);
      if (found) done(found[1] as string);
    });
    child.once("exit", (code) => fail(new Error(`the HTTP shipping server exited (${code})`)));
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A launch for the Pi adapter as a session would build it, with what it recorded. */
export interface TestLaunch {
  readonly launch: HarnessLaunch;
  readonly capture: WireCapture;
  readonly events: HarnessEvent[];
}

/** Wraps `servers` for capture with the allow-list `tools` and builds the launch by hand. */
export async function piLaunch(
  kit: MCPTestKit,
  selection: SelectionSpec,
  servers: readonly ServerSpec[],
  tools?: readonly string[],
): Promise<TestLaunch> {
  const { capture, servers: captured } = await kit.capture({
    servers,
    ...(tools !== undefined ? { tools } : {}),
  });
  const events: HarnessEvent[] = [];
  const launch: HarnessLaunch = {
    model: selection.model,
    selection,
    config: kit.env,
    servers: captured,
    toolPolicy: parseToolPolicy(
      tools,
      servers.map((server) => server.name),
    ),
    workspace: await kit.tempDir("m3-workspace-"),
    env: childEnvironment(),
    credentials: Object.keys(selection.credentialEnv),
    ...(selection.provider ? { provider: selection.provider } : {}),
    signal: new AbortController().signal,
    tempDir: (prefix) => kit.tempDir(prefix),
    spawn: (launchSpec) => kit.spawn(launchSpec),
    record: (event) => events.push(event),
  };
  return { launch, capture, events };
}

/** Runs one turn inside a wire-capture turn window, as a session does. */
export async function turn(
  session: HarnessSession,
  capture: WireCapture,
  turnId: string,
  text: string,
): Promise<AdapterTurn> {
  capture.beginTurn(turnId);
  try {
    return await session.send({
      text,
      turnId,
      timeoutMs: 60_000,
      signal: new AbortController().signal,
    });
  } finally {
    await capture.endTurn();
  }
}
