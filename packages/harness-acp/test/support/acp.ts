/**
 * The ACP adapter's tests on the shared test support: a selection of an ACP harness kind on
 * the scripted model and a launch built by hand from the kit's public API, so the tests drive
 * the real Gemini CLI and OpenCode binaries, the scripted model and real MCP servers without
 * going through an agent session.
 */
import type { MCPTestKit, ModelProvider, ServerSpec } from "@jest-m3/core";
import type { SelectionSpec } from "@jest-m3/core/harness";
import { selectionOf, testLaunch, type TestLaunch } from "@jest-m3/test-support";

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
