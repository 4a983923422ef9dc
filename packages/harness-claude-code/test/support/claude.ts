/**
 * The Claude Code adapter's tests on the shared test support: a Claude Code selection on the
 * scripted model and a launch built by hand from the kit's public API, so the tests drive the
 * real Claude Code binary, the scripted model and real MCP servers without a session.
 */
import { readFileSync } from "node:fs";
import type { ModelProvider, StdioServer } from "@jest-m3/core";
import type { SelectionSpec } from "@jest-m3/core/harness";
import {
  childrenOf,
  selectionOf,
  shippingServer as sharedShippingServer,
} from "@jest-m3/test-support";

export {
  callLog,
  closeAndExpectNoProcessLeft,
  isRunning,
  knownPids,
  ledgerServer,
  REPO_ROOT,
  runTurn as turn,
  startHttpShipping,
  turnRequest,
  waitFor,
  type TestLaunch,
  launchWithTools as claudeLaunch,
} from "@jest-m3/test-support";

/**
 * The shipping example server, named `name`, started by a path relative to the repository
 * root on purpose: the server must start in its own cwd, not Claude Code's workspace.
 */
export function shippingServer(callLog: string, name = "shipping"): StdioServer {
  return {
    ...sharedShippingServer(callLog, { name }),
    args: ["examples/shipping/shipping-server.mjs"],
  };
}

/**
 * A selection of the Claude Code harness with the scripted model as provider, cold
 * (`warm: false`) unless `extra.options` says otherwise: the tests on a launch built by
 * hand check that the session's own Claude Code process is gone at its close
 * (warm.test.ts and warm-default.test.ts try the warm pool).
 */
export function claudeSelection(
  provider: ModelProvider | undefined,
  extra: Partial<SelectionSpec> = {},
): SelectionSpec {
  const options = { warm: false, ...extra.options };
  return selectionOf("claude-code", "scripted-model", provider, { ...extra, options });
}

/** This worker's Claude Code processes in stream-json mode (the warm ones outlive kits). */
export function claudePids(): number[] {
  return childrenOf(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("\0stream-json\0");
    } catch {
      return false;
    }
  });
}
