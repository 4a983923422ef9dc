/**
 * What the kit would give an adapter, built by hand from the kit's public API: a selection
 * on the scripted model, a HarnessLaunch over captured servers, turn requests and turns run
 * inside a wire-capture turn window, so an adapter's tests drive the real agent binary, the
 * scripted model and real MCP servers without going through an agent session.
 */
import type { MCPTestKit, ServerSpec, WireCapture } from "@jest-m3/core";
import { parseToolPolicy } from "@jest-m3/core/testing";
import { childEnvironment } from "@jest-m3/core/adapter-kit";
import {
  type AdapterTurn,
  type HarnessEvent,
  type HarnessLaunch,
  type HarnessSession,
  type ModelProvider,
  type SelectionSpec,
} from "@jest-m3/core/harness";
import { EventLog } from "./waits";

/** A selection of harness `harness` on model `model`, with the scripted model as provider. */
export function selectionOf(
  harness: string,
  model: string,
  provider: ModelProvider | undefined,
  extra: Partial<SelectionSpec> = {},
): SelectionSpec {
  return {
    harness,
    model,
    name: `${harness}:${model}`,
    credentialEnv: {},
    ...(provider ? { provider } : {}),
    options: {},
    ...extra,
  };
}

/** A launch as a session would build it, with what it recorded. */
export interface TestLaunch {
  readonly launch: HarnessLaunch;
  readonly capture: WireCapture;
  /** The events the adapter recorded, in order; `events.waitFor` waits for one to come. */
  readonly events: EventLog<HarnessEvent>;
  /** Aborts the launch's signal (the session being torn down). */
  readonly teardown: AbortController;
}

/** How {@link testLaunch} builds a launch beyond its servers. */
export interface TestLaunchOptions {
  /** The allow-list (`server:tool` patterns); none allows everything. */
  readonly tools?: readonly string[];
  /**
   * Variables for the agent's environment, over the kit's child environment; when given,
   * they are the launch's credentials (else the selection's credentialEnv names are).
   */
  readonly env?: Record<string, string>;
}

/** Wraps `servers` for capture with the allow-list and builds the launch. */
export async function testLaunch(
  kit: MCPTestKit,
  selection: SelectionSpec,
  servers: readonly ServerSpec[],
  options: TestLaunchOptions = {},
): Promise<TestLaunch> {
  const { tools, env } = options;
  const { capture, servers: captured } = await kit.capture({
    servers,
    ...(tools !== undefined ? { tools } : {}),
  });
  const events = new EventLog<HarnessEvent>();
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
    env: childEnvironment(env ?? {}),
    credentials: Object.keys(env ?? selection.credentialEnv),
    ...(selection.provider ? { provider: selection.provider } : {}),
    signal: teardown.signal,
    tempDir: (prefix) => kit.tempDir(prefix),
    spawn: (launchSpec) => kit.spawn(launchSpec),
    record: (event) => events.push(event),
  };
  return { launch, capture, events, teardown };
}

/**
 * {@link testLaunch} with the allow-list `tools` and, when given, the extra `env` (then the
 * launch's credentials), in the order an adapter's tests name them:
 * `launchWithTools(kit, selection, servers, ["shipping:shipping_quote"])`.
 */
export function launchWithTools(
  kit: MCPTestKit,
  selection: SelectionSpec,
  servers: readonly ServerSpec[],
  tools?: readonly string[],
  env?: Record<string, string>,
): Promise<TestLaunch> {
  return testLaunch(kit, selection, servers, { tools, ...(env ? { env } : {}) });
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
export async function runTurn(
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
