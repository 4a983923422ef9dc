/**
 * The Codex adapter's tests on the shared test support: a Codex selection on the scripted
 * model and a launch built by hand from the kit's public API, so the tests drive the real
 * Codex binary, the scripted model and real MCP servers without going through a session.
 */
import type { ModelProvider } from "@jest-m3/core";
import type { SelectionSpec } from "@jest-m3/core/harness";
import { selectionOf } from "@jest-m3/test-support";

export {
  callLog,
  closeAndExpectNoProcessLeft,
  isRunning,
  knownPids,
  ledgerServer,
  REPO_ROOT,
  runTurn,
  shippingServer,
  turnRequest,
  waitFor,
  type TestLaunch,
  launchWithTools as codexLaunch,
} from "@jest-m3/test-support";

/**
 * A selection of the Codex harness with the scripted model as provider, cold (`warm:
 * false`) unless `extra.options` says otherwise: these tests check the app-server a session
 * owns by its pid; warm.test.ts and the warm fault matrix try the warm pool.
 */
export function codexSelection(
  provider: ModelProvider | undefined,
  extra: Partial<SelectionSpec> = {},
): SelectionSpec {
  return selectionOf("codex", "scripted", provider, {
    ...extra,
    options: { warm: false, ...extra.options },
  });
}
