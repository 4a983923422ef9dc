import {
  HarnessStartError,
  type Capability,
  type HarnessLaunch,
  type ModelProvider,
  type ProviderDialect,
  type SelectionSpec,
} from "@jest-m3/core/harness";
import type { AcpClient, StopSignal } from "../acp-client.js";
import type { AgentOnNode } from "@jest-m3/core/adapter-kit";
import type { ExecutableLookup, FoundExecutable, TestedRange } from "@jest-m3/core/adapter-kit";
import type { AgentHome } from "../home.js";
import type { ResolvedCommonOptions } from "../options.js";
import type { NewSessionResponse, SessionConfigOption } from "../protocol.js";
import type { AgentToolCall, SessionTools } from "../reported-calls.js";
import type { ToolIdentity, ToolNaming } from "../tool-names.js";

export type { FoundExecutable, TestedRange } from "@jest-m3/core/adapter-kit";

/**
 * How an agent that needs another runtime is started, for {@link AcpProfile.runtime}: the
 * adapter kit's start on the Node it needs (readiness reports its `node` capability).
 */
export type AgentRuntime = AgentOnNode;

/** What a profile gets to plan one agent process. */
export interface PlanContext<O> {
  readonly launch: HarnessLaunch;
  readonly home: AgentHome;
  readonly options: O;
  readonly executable: FoundExecutable;
}

/** The agent's arguments and environment (the command is the executable's). */
export interface AgentPlan {
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** What a profile gets once the ACP session exists. */
export interface SessionContext<O> {
  readonly launch: HarnessLaunch;
  readonly options: O;
  readonly client: AcpClient;
  readonly session: NewSessionResponse;
}

/** A turn the agent ended normally (`end_turn`), as a profile's {@link AcpProfile.turnFailure} sees it. */
export interface EndedTurn {
  /** The ACP session id. */
  readonly sessionId: string;
  /** The root of the agent's isolated home (a warm agent's shared one). */
  readonly homeRoot: string;
  /** The text of each of the turn's `agent_message_chunk` updates, in order. */
  readonly chunks: readonly string[];
}

/**
 * A launch profile: everything that differs between ACP agents. The adapter (client,
 * session, turns, evidence, readiness) is the same for all of them.
 */
export interface AcpProfile<O extends ResolvedCommonOptions = ResolvedCommonOptions> {
  /** The harness kind, e.g. `gemini`. */
  readonly name: string;
  /** The agent's name in messages, e.g. `Gemini CLI`. */
  readonly agent: string;
  /** The provider dialects the profile can point the agent at, preferred first. */
  readonly dialects: readonly ProviderDialect[];
  /** The tested versions, or undefined when unknown (an agent given by command). */
  readonly tested?: TestedRange;
  /**
   * Whether an MCP server's elicitation reaches this adapter so a session's plan can
   * answer it: readiness reports it as the `elicitation` capability.
   */
  readonly elicitation: Capability;
  /**
   * How many sessions one warm process serves at once (default: no limit): the next warm
   * session of the same key past it gets a process of its own. For an agent that answers
   * many ACP sessions on one process slowly (each `session/new` starting that session's
   * MCP servers in turn).
   */
  readonly warmSessions?: number;
  /** Checks and completes the selection's options; throws on a malformed one. */
  resolveOptions(options: Readonly<Record<string, unknown>>): O;
  /** Finds the executable. */
  executable(
    selection: SelectionSpec,
    config: Readonly<Record<string, string | undefined>>,
    options: O,
  ): ExecutableLookup;
  /**
   * For an agent that must run on another runtime than the one its executable would get
   * (a script that needs a newer Node than the tests'): finds it before every start and in
   * readiness, where its capability is reported as `node`.
   */
  runtime?(
    executable: FoundExecutable,
    config: Readonly<Record<string, string | undefined>>,
    options: O,
  ): Promise<AgentRuntime>;
  /**
   * What {@link runtime}'s choice depends on, for the readiness key (which cannot wait for
   * `runtime()`): e.g. the identities of the Node candidates.
   */
  runtimeKey?(config: Readonly<Record<string, string | undefined>>): unknown;
  /** Whether there is something to authenticate with, and how the provider is reached. */
  credentials(
    provider: ModelProvider | undefined,
    credentialNames: readonly string[],
    model: string,
    options: O,
  ): Capability;
  /** Writes the agent's settings into its fresh home; returns its arguments and environment. */
  plan(context: PlanContext<O>): Promise<AgentPlan>;
  /** Runs after `session/new` (e.g. picks the model). */
  afterSessionNew?(context: SessionContext<O>): Promise<void>;
  /**
   * For an agent that reports some failures as answer text and still ends the prompt with
   * `end_turn` (GitHub Copilot CLI's provider errors): why such a turn failed, from the
   * agent's own evidence, or undefined when it completed. The turn then ends `failed`.
   */
  turnFailure?(turn: EndedTurn): Promise<string | undefined>;
  /** How the agent is stopped. */
  stop(options: O): StopSignal;
  /**
   * How the agent flattens `server:tool` into one name, when the adapter knows it: a
   * session whose names would collide under it is refused before the agent starts.
   */
  readonly naming?: ToolNaming;
  /**
   * Maps one of the agent's calls to an MCP server and tool from what the protocol says of
   * it (kind, ids, names), never from display text (undefined: not an MCP tool).
   */
  identify(call: AgentToolCall, session: SessionTools): ToolIdentity | undefined;
}

/**
 * The profile's executable (`lookup`) and how it is started (`executable`: on the runtime
 * the profile finds for it, when it needs one; `runtime` then says which).
 */
export async function resolveExecutable<O extends ResolvedCommonOptions>(
  profile: AcpProfile<O>,
  selection: SelectionSpec,
  config: Readonly<Record<string, string | undefined>>,
  options: O,
): Promise<{ lookup: ExecutableLookup; executable: ExecutableLookup; runtime?: AgentRuntime }> {
  const lookup = profile.executable(selection, config, options);
  if (!lookup.found) return { lookup, executable: lookup };
  const runtime = await profile.runtime?.(lookup, config, options);
  return runtime
    ? { lookup, executable: runtime.executable, runtime }
    : { lookup, executable: lookup };
}

/** The values of a select config option, groups flattened. */
function selectValues(option: SessionConfigOption): string[] {
  if (option.type !== "select") return [];
  return option.options.flatMap((entry) =>
    "options" in entry ? entry.options.map((one) => one.value) : [entry.value],
  );
}

/**
 * Picks `model` through the session's `model` config option (`session/set_config_option`),
 * when the agent offers one; an agent that offers models but not this one fails the start
 * with the list. Returns what happened, for the trace.
 */
export async function selectModelOption(
  agent: string,
  client: AcpClient,
  session: NewSessionResponse,
  model: string,
  timeoutMs: number,
): Promise<string> {
  const option = (session.configOptions ?? []).find(
    (entry) => entry.type === "select" && (entry.category === "model" || entry.id === "model"),
  );
  if (!option || option.type !== "select") {
    return `${agent} offers no model option over ACP; it runs its own default model`;
  }
  if (option.currentValue === model) return `${agent} runs ${model}`;
  const values = selectValues(option);
  if (!values.includes(model)) {
    throw new HarnessStartError(
      agent,
      `the model "${model}" is not one ${agent} offers (${values.map((value) => JSON.stringify(value)).join(", ")})`,
    );
  }
  await client.call(
    "session/set_config_option",
    { sessionId: session.sessionId, configId: option.id, value: model },
    { timeoutMs },
  );
  return `${agent} switched to ${model} (session/set_config_option ${option.id})`;
}
