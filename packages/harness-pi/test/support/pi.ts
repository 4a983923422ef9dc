/**
 * What the Pi harness's tests share: the servers (the example's shipping server and the
 * ledger fixture, each logging every call it receives: the ground truth), their call logs,
 * a Pi selection on the scripted model, and process checks made with `ps`, independently
 * of the kit's own bookkeeping.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { MCPTestKit, StdioServer } from "jest-m3";
import type { ModelProvider, SelectionSpec } from "@jest-m3/core/harness";

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
