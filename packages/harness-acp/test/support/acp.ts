/**
 * The ACP adapter's tests on the shared test support: a selection of an ACP harness kind on
 * the scripted model and a launch built by hand from the kit's public API, so the tests drive
 * the real Gemini CLI and OpenCode binaries, the scripted model and real MCP servers without
 * going through an agent session.
 */
import { join } from "node:path";
import type { MCPTestKit, ModelProvider, ServerSpec } from "@jest-m3/core";
import type { HarnessDefinition, SelectionSpec } from "@jest-m3/core/harness";
import type { AcpSession } from "@jest-m3/harness-acp";
import {
  ledgerServer,
  selectionOf,
  shippingServer,
  testLaunch,
  type PerTest,
  type TestLaunch,
} from "@jest-m3/test-support";

export {
  callLog,
  closeAndExpectNoProcessLeft,
  descendants,
  isRunning,
  knownPids,
  ledgerServer,
  REPO_ROOT,
  runTurn,
  shippingServer,
  startHttpShipping,
  turnRequest,
  waitFor,
  type TestLaunch,
} from "@jest-m3/test-support";

/** A selection of an ACP harness kind. */
export function selection(
  harness: string,
  provider: ModelProvider | undefined,
  extra: Partial<SelectionSpec> = {},
): SelectionSpec {
  return selectionOf(harness, "scripted-1", provider, extra);
}

/**
 * Wraps `servers` for capture with the allow-list `tools` and builds the launch; `env` is
 * the agent's extra environment and its credentials.
 */
export function acpLaunch(
  kit: MCPTestKit,
  spec: SelectionSpec,
  servers: readonly ServerSpec[],
  tools?: readonly string[],
  env: Record<string, string> = {},
): Promise<TestLaunch> {
  return testLaunch(kit, spec, servers, { tools, env });
}

/**
 * Opens a session of the ACP kind `harness` (adapter options `options`) on the shipping
 * and the ledger servers, each logging its calls, with shipping_quote and read_ledger
 * allowed; the capture is added to the test's captures.
 */
export async function openShippingAndLedger(
  t: PerTest,
  harness: HarnessDefinition,
  kind: string,
  options: Record<string, unknown> = {},
) {
  const dir = await t.kit.tempDir("m3-log-");
  const logs = { shipping: join(dir, "shipping.jsonl"), ledger: join(dir, "ledger.jsonl") };
  const { launch, capture, events } = await acpLaunch(
    t.kit,
    selection(kind, t.model.providerFor("chat-completions"), { options }),
    [shippingServer(logs.shipping), ledgerServer(logs.ledger)],
    ["shipping:shipping_quote", "ledger:read_ledger"],
  );
  t.captures.push(capture);
  const session = (await harness.open(launch)) as AcpSession;
  return { session, capture, events, logs };
}
