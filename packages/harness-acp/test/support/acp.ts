/**
 * The ACP adapter's tests on the shared test support: a selection of an ACP harness kind on
 * the scripted model and a launch built by hand from the kit's public API, so the tests drive
 * the real Gemini CLI and OpenCode binaries, the scripted model and real MCP servers without
 * going through an agent session.
 */
import { join } from "node:path";
import type { MCPTestKit, ModelProvider, StdioServer } from "@jest-m3/core";
import type { HarnessDefinition, SelectionSpec } from "@jest-m3/core/harness";
import {
  AcpClient,
  copilotProfile,
  geminiProfile,
  INITIALIZE_PARAMS,
  kiloProfile,
  opencodeProfile,
  qwenProfile,
  ToolNameCollision,
  type AcpProfile,
  type AcpSession,
  type ResolvedCommonOptions,
} from "@jest-m3/harness-acp";
import type { Rule } from "@jest-m3/scripted-model";
import {
  bothQuotesRule,
  callLog,
  ERASE_RULE,
  expectRefusedBeforeStart,
  expectSeedOn,
  HANG_RULE,
  lastOffered,
  ledgerServer,
  namedToolsServer,
  runTurn,
  seedRule,
  selectionOf,
  shippingServer,
  type PerTest,
  type SeedRun,
  launchWithTools,
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

/** {@link launchWithTools} with `env` (the agent's credentials) empty unless given. */
export const acpLaunch = (
  kit: MCPTestKit,
  spec: SelectionSpec,
  servers: Parameters<typeof launchWithTools>[2],
  tools?: readonly string[],
  env: Record<string, string> = {},
) => launchWithTools(kit, spec, servers, tools, env);

/** The named agents' profiles (the `acp` kind needs a command, and is never warm by default). */
const NAMED_PROFILES: readonly AcpProfile<ResolvedCommonOptions>[] = [
  geminiProfile,
  opencodeProfile,
  kiloProfile,
  copilotProfile,
  qwenProfile,
];

/** True when the kind's sessions are warm if a selection leaves `warm` out, as its profile says. */
const warmByDefault = (harness: string): boolean =>
  NAMED_PROFILES.some((profile) => profile.name === harness && profile.resolveOptions({}).warm);

/**
 * A selection of an ACP harness kind. Selections of a kind warm by default (Gemini CLI,
 * OpenCode, Kilo Code, Qwen Code: whatever its profile says) are cold (`warm: false`) unless
 * `extra.options` says otherwise: the tests on a launch built by hand check
 * that the session's own agent process is gone at its close (warm.test.ts and
 * warm-default.test.ts try the warm pool).
 */
export function selection(
  harness: string,
  provider: ModelProvider | undefined,
  extra: Partial<SelectionSpec> = {},
): SelectionSpec {
  if (!warmByDefault(harness)) return selectionOf(harness, "scripted-1", provider, extra);
  const options = { warm: false, ...extra.options };
  return selectionOf(harness, "scripted-1", provider, { ...extra, options });
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

/**
 * The scripted model's rules of an agent's session tests: the seed's prompts (replying "The
 * quote for N kg is ready."), "erase", "both quotes" and "hang".
 */
export const SESSION_RULES: readonly Rule[] = [
  seedRule("The quote for {{match.1}} kg is ready."),
  ERASE_RULE,
  bothQuotesRule(),
  HANG_RULE,
];

/** The ACP kind `harness` on the test's scripted model (chat completions, model scripted-1). */
export function scriptedAgent(t: PerTest, harness: string) {
  return { harness, models: ["scripted-1"], provider: t.model.providerFor("chat-completions") };
}

/**
 * The seed on the ACP kind `harness` ({@link expectSeedOn}), its agent reported as
 * `harness` at `version`, and both replies as {@link SESSION_RULES} words them.
 */
export async function expectAcpSeed(
  t: PerTest,
  harness: string,
  version: string,
): Promise<SeedRun> {
  const run = await expectSeedOn(t.kit, scriptedAgent(t, harness));
  expect(run.result.snapshot.agent).toEqual(
    expect.objectContaining({ harness, model: "scripted-1", version }),
  );
  expect(run.first.response?.text).toBe("The quote for 2 kg is ready.");
  expect(run.second.response?.text).toBe("The quote for 3 kg is ready.");
  return run;
}

const initialize = (client: AcpClient) =>
  client.call("initialize", INITIALIZE_PARAMS, { timeoutMs: 60_000 });
/** What an agent answers to initialize. */
export type InitializeAnswer = Awaited<ReturnType<typeof initialize>>;

/** The agent process an ACP contract test starts by hand. */
export interface ClientSpawn {
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  readonly cwd: string;
}

/**
 * Spawns `spawn` through the kit as the ACP agent `agent`, answers initialize (asserting
 * ACP 1 and HTTP MCP servers), runs `body` with the client and initialize's answer, and
 * closes the client (`stop`) whatever happened.
 */
export async function withAcpClient(
  kit: MCPTestKit,
  agent: string,
  spawn: ClientSpawn,
  stop: "stdin" | "sigterm",
  body: (client: AcpClient, init: InitializeAnswer) => Promise<void>,
  graceMs = 5000,
): Promise<void> {
  const client = new AcpClient(agent, kit.spawn({ ...spawn, args: [...spawn.args] }));
  try {
    await client.connect();
    const init = await initialize(client);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities?.mcpCapabilities?.http).toBe(true);
    await body(client, init);
  } finally {
    await client.end(stop, graceMs);
  }
}

/**
 * On a session of {@link openShippingAndLedger}: "erase" asks for a tool outside the
 * allow-list, declined (recorded as an approval, the call policy_denied) and never reaching
 * the ledger server; then an allowed shipping_quote runs, the only call on the wire and in
 * the shipping server's log. For an agent that asks before a call (or is made to).
 */
export async function expectDeclinedThenAllowed(
  t: PerTest,
  harness: HarnessDefinition,
  kind: string,
  options: Record<string, unknown> = {},
): Promise<void> {
  const { session, capture, events, logs } = await openShippingAndLedger(t, harness, kind, options);
  try {
    const denied = await runTurn(session, capture, "turn-1", "Please erase the ledger.");
    expect([denied.outcome, denied.error]).toEqual(["completed", null]);
    expect(lastOffered(t.model)).toContain("ledger:erase_ledger");
    expect(denied.toolCalls.map((call) => [call.server, call.tool, call.status])).toEqual([
      ["ledger", "erase_ledger", "policy_denied"],
    ]);
    expect(events).toContainEqual({
      kind: "approval",
      detail: "declined ledger:erase_ledger (not in the session's allow-list)",
    });
    const allowed = await runTurn(session, capture, "turn-2", "Quote weight_kg 2 in zone local.");
    expect(allowed.toolCalls.map((call) => [call.server, call.tool, call.status])).toEqual([
      ["shipping", "shipping_quote", "success"],
    ]);
    expect(capture.trace.toolCalls.map((call) => call.tool)).toEqual(["shipping_quote"]);
    expect(callLog(logs.ledger)).toEqual([]);
    expect(callLog(logs.shipping).map((entry) => entry.tool)).toEqual(["shipping_quote"]);
  } finally {
    await session.close();
  }
}

/** A stdio server as an ACP `session/new` entry (its environment as name/value pairs). */
export function acpStdioServer(server: StdioServer) {
  return {
    name: server.name,
    command: server.command,
    args: [...(server.args ?? [])],
    env: Object.entries(server.env ?? {}).map(([name, value]) => ({ name, value })),
  };
}

/**
 * The ACP kind `kind` (harness `harness`) on named-tools servers `servers` (name → its
 * tools), whose tool names collide under the agent's naming: open() is refused with
 * ToolNameCollision matching `message` before anything spawns, and no server logged a call.
 */
export async function expectCollisionRefused(
  t: PerTest,
  harness: HarnessDefinition,
  kind: string,
  servers: Readonly<Record<string, readonly string[]>>,
  message: RegExp,
): Promise<void> {
  const log = join(await t.kit.tempDir("m3-log-"), "calls.jsonl");
  const { launch, capture } = await acpLaunch(
    t.kit,
    selection(kind, t.model.providerFor("chat-completions")),
    Object.entries(servers).map(([name, tools]) => namedToolsServer(name, tools, log)),
  );
  t.captures.push(capture);
  await expectRefusedBeforeStart(
    t.kit,
    () => harness.open(launch),
    ToolNameCollision,
    message,
    log,
  );
}
