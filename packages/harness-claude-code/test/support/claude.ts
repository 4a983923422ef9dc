/**
 * Builds what the kit would give the Claude Code adapter (a HarnessLaunch over captured
 * servers), by hand from the kit's public API, so the adapter's tests drive the real Claude
 * Code binary, the scripted model and real MCP servers without going through a session.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { childEnvironment } from "@jest-m3/core/adapter-kit";
import { parseToolPolicy } from "@jest-m3/core/harness";
import {
  type MCPTestKit,
  type ServerSpec,
  type StdioServer,
  type WireCapture,
} from "@jest-m3/core";
import type {
  AdapterTurn,
  HarnessEvent,
  HarnessLaunch,
  HarnessSession,
  ModelProvider,
  SelectionSpec,
} from "@jest-m3/core/harness";

/** The repository root. */
export const REPO_ROOT = resolve(__dirname, "../../../..");

/** The shipping example server over Streamable HTTP (core's test support: one helper). */
export { startHttpShipping } from "../../../core/test/support/servers";

/** The shipping MCP server of the example (one tool, shipping_quote, readOnlyHint). */
export function shippingServer(callLog: string, name = "shipping"): StdioServer {
  return {
    name,
    command: process.execPath,
    // Relative on purpose: the server must start in its own cwd, not Claude Code's workspace.
    args: ["examples/shipping/shipping-server.mjs"],
    env: { SHIPPING_CALL_LOG: callLog },
    cwd: REPO_ROOT,
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

/** A selection of the Claude Code harness with the scripted model as provider. */
export function claudeSelection(
  provider: ModelProvider | undefined,
  extra: Partial<SelectionSpec> = {},
): SelectionSpec {
  return {
    harness: "claude-code",
    model: "scripted-model",
    name: "claude-code:scripted-model",
    credentialEnv: {},
    ...(provider ? { provider } : {}),
    options: {},
    ...extra,
  };
}

/** A launch for the Claude Code adapter, as a session would build it, with what it recorded. */
export interface TestLaunch {
  readonly launch: HarnessLaunch;
  readonly capture: WireCapture;
  readonly events: HarnessEvent[];
  /** Aborts the launch's signal (the session being torn down). */
  readonly teardown: AbortController;
}

/** Wraps `servers` for capture with the allow-list `tools` and builds the launch. */
export async function claudeLaunch(
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
  const teardown = new AbortController();
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
    signal: teardown.signal,
    tempDir: (prefix) => kit.tempDir(prefix),
    spawn: (launchSpec) => kit.spawn(launchSpec),
    record: (event) => events.push(event),
  };
  return { launch, capture, events, teardown };
}

/** A turn request with its own abort controller. */
export function turnRequest(
  text: string,
  turnId: string,
  timeoutMs = 60_000,
): {
  request: { text: string; turnId: string; timeoutMs: number; signal: AbortSignal };
  abort: AbortController;
} {
  const abort = new AbortController();
  return { request: { text, turnId, timeoutMs, signal: abort.signal }, abort };
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
    return await session.send(turnRequest(text, turnId).request);
  } finally {
    await capture.endTurn();
  }
}

/** Waits until `condition` holds. */
export async function waitFor(
  condition: () => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * True when a process with this id exists and is not a zombie, as `ps` sees it (checked
 * independently of the kit's own bookkeeping).
 */
export function isRunning(pid: number): boolean {
  const ps = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" });
  const state = ps.stdout.trim();
  return state !== "" && !state.startsWith("Z");
}

/** Every process id the test knows of: the kit's children and the capture's relays and servers. */
export function knownPids(kit: MCPTestKit, captures: readonly WireCapture[]): number[] {
  return [
    ...new Set([
      ...kit.processes.map((child) => child.pid),
      ...captures.flatMap((capture) => capture.pids),
    ]),
  ];
}

/** Closes the kit and asserts that none of `pids` (nor the kit's processes) still runs. */
export async function closeAndExpectNoProcessLeft(
  kit: MCPTestKit,
  pids: readonly number[],
): Promise<void> {
  const all = [...new Set([...pids, ...kit.processes.map((child) => child.pid)])];
  await kit.close();
  expect(kit.processes).toEqual([]);
  expect(all.filter(isRunning)).toEqual([]);
}
