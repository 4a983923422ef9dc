/**
 * Builds what the kit would give the Codex adapter (a HarnessLaunch over captured servers),
 * by hand from the kit's public API, so the adapter's tests drive the real Codex binary, the
 * scripted model and real MCP servers without going through an agent session.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { childEnvironment } from "@jest-m3/core/adapter-kit";
import {
  parseToolPolicy,
  type HarnessEvent,
  type HarnessLaunch,
  type SelectionSpec,
} from "@jest-m3/core/harness";
import {
  type MCPTestKit,
  type ModelProvider,
  type ServerSpec,
  type StdioServer,
  type WireCapture,
} from "@jest-m3/core";

/** The repository root. */
export const REPO_ROOT = resolve(__dirname, "../../../..");

/** The shipping MCP server of the example (one tool, shipping_quote, readOnlyHint). */
export function shippingServer(callLog: string): StdioServer {
  return {
    name: "shipping",
    command: process.execPath,
    args: [join(REPO_ROOT, "examples/shipping/shipping-server.mjs")],
    env: { SHIPPING_CALL_LOG: callLog },
    cwd: REPO_ROOT,
  };
}

/** The ledger fixture server: tools that need approval, one read-only, one that crashes. */
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

/** A selection of the Codex harness with the scripted model as provider. */
export function codexSelection(
  provider: ModelProvider | undefined,
  extra: Partial<SelectionSpec> = {},
): SelectionSpec {
  return {
    harness: "codex",
    model: "scripted",
    name: "codex:scripted",
    credentialEnv: {},
    ...(provider ? { provider } : {}),
    options: {},
    ...extra,
  };
}

/** A launch for the Codex adapter, as a session would build it, with what it recorded. */
export interface TestLaunch {
  readonly launch: HarnessLaunch;
  readonly capture: WireCapture;
  readonly events: HarnessEvent[];
  /** Aborts the launch's signal (the session being torn down). */
  readonly teardown: AbortController;
}

/** Wraps `servers` for capture with the allow-list `tools` and builds the launch. */
export async function codexLaunch(
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
