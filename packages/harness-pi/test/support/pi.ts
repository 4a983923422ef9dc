/**
 * The Pi harness's tests on the shared test support: the servers (the example's shipping
 * server and the ledger fixture with its slow `wait` tool, each logging every call it
 * receives: the ground truth), a Pi selection on the scripted model, a launch built by hand,
 * and process checks made with `ps`, independently of the kit's own bookkeeping.
 */
import { join } from "node:path";
import type { AgentSelection, MCPTestKit, ModelProvider, StdioServer } from "@jest-m3/core";
import type { ScriptedModel } from "@jest-m3/scripted-model";
import type { SelectionSpec } from "@jest-m3/core/harness";
import {
  ledgerServer as sharedLedgerServer,
  REPO_ROOT,
  selectionOf,
  shippingServer as sharedShippingServer,
} from "@jest-m3/test-support";

export {
  callLog,
  descendants,
  isRunning,
  processTree,
  REPO_ROOT,
  runTurn as turn,
  startHttpShipping,
  type TestLaunch,
  launchWithTools as piLaunch,
} from "@jest-m3/test-support";

/** The shipping MCP server of the example (one tool, shipping_quote), in its own folder. */
export function shippingServer(callLog: string, name = "shipping"): StdioServer {
  return sharedShippingServer(callLog, { name, cwd: join(REPO_ROOT, "examples/shipping") });
}

/** The ledger fixture server with its slow tool: record_entry, erase_ledger, read_ledger, crash, wait. */
export function ledgerServer(callLog: string, args: readonly string[] = []): StdioServer {
  return sharedLedgerServer(callLog, ["--with-wait", ...args]);
}

/** A selection of the Pi harness with the scripted model as provider. */
export function piSelection(
  provider: ModelProvider | undefined,
  extra: Partial<SelectionSpec> = {},
): SelectionSpec {
  return selectionOf("pi", "scripted-model", provider, extra);
}

/** The kit's Pi agent on the scripted model's Responses provider, with `options`. */
export function piAgent(
  kit: MCPTestKit,
  model: ScriptedModel,
  options: Readonly<Record<string, unknown>> = {},
): AgentSelection {
  const [agent] = kit.agents([
    {
      harness: "pi",
      models: ["scripted-model"],
      provider: model.providerFor("responses"),
      options,
    },
  ]);
  return agent!;
}
