/**
 * The open harness contract: what an adapter implements so jest-m3 can drive an agent.
 * Anyone can publish an adapter (`@jest-m3/harness-<name>` or `jest-m3-harness-<name>`);
 * this module is all it needs from core.
 *
 * @packageDocumentation
 */
import type { ReportedToolCall } from "../evidence/trace.js";
import type { ManagedProcess, ProcessLaunch } from "../processes/managed-process.js";
import type { ToolPolicy } from "../servers/tool-policy.js";
import type { CapturedServer } from "../wire/captured-server.js";
import type { ElicitationResponder } from "./elicitation-responder.js";
import { InvalidHarness, M3Error, stderrSection } from "../errors.js";

export type { ReportedToolCall };

/** How ready one capability of a harness is. */
export type CapabilityStatus = "ready" | "degraded" | "unavailable" | "unsupported";

/** One capability's status and, unless ready, why. */
export interface Capability {
  readonly status: CapabilityStatus;
  readonly reason?: string;
}

/**
 * The capabilities every readiness report names. Adapters may add more, and should name
 * `elicitation`: whether MCP servers' elicitations reach the adapter so a session's plan
 * can answer them (see {@link OPTIONAL_CAPABILITIES}).
 */
export interface Capabilities {
  /** Several turns in one conversation. */
  readonly multiTurn: Capability;
  /** Restricting the agent to an allow-list of tools. */
  readonly toolPolicy: Capability;
  /** MCP servers can be wrapped for wire capture. */
  readonly wireEvidence: Capability;
  /** The harness reports the tool calls it made. */
  readonly reportedEvidence: Capability;
  /** A running turn can be interrupted. */
  readonly cancellation: Capability;
  /** Tool approvals are answered by the adapter. */
  readonly approvals: Capability;
  /** A login, a key or a provider is available. */
  readonly credentials: Capability;
  readonly [name: string]: Capability;
}

/**
 * The one rule for "can this capability be used": ready or degraded. Unavailable and
 * unsupported capabilities block what needs them; an absent one counts as unsupported.
 */
export function isUsable(capability: Capability | undefined): boolean {
  return (
    capability !== undefined && (capability.status === "ready" || capability.status === "degraded")
  );
}

/** `name: status (reason)` for a capability that is not ready, for messages. */
export function describeCapability(name: string, capability: Capability | undefined): string {
  return `${name}: ${capability?.status ?? "unsupported"}${capability?.reason ? ` (${capability.reason})` : ""}`;
}

/**
 * Capabilities only some sessions need (a session with an elicitation plan needs
 * `elicitation`). One of them being `unsupported` does not make a harness not ready; the
 * sessions that need it are refused.
 */
export const OPTIONAL_CAPABILITIES: readonly string[] = Object.freeze(["elicitation"]);

/**
 * Builds a {@link Readiness} whose `ready` follows the one rule: every capability usable
 * (an {@link OPTIONAL_CAPABILITIES} one may also be `unsupported`).
 *
 * @example
 * ```ts
 * return readinessOf({ name: "my-agent", version, executable }, capabilities);
 * ```
 */
export function readinessOf(harness: Readiness["harness"], capabilities: Capabilities): Readiness {
  const ready = Object.entries(capabilities).every(
    ([name, capability]) =>
      isUsable(capability) ||
      (OPTIONAL_CAPABILITIES.includes(name) && capability.status === "unsupported"),
  );
  return { ready, harness, capabilities };
}

/** What a harness says about itself before anything is started. */
export interface Readiness {
  /** True when every capability is ready or degraded. */
  readonly ready: boolean;
  readonly harness: {
    readonly name: string;
    readonly version: string | null;
    readonly executable: string | null;
  };
  readonly capabilities: Capabilities;
}

/**
 * The model APIs ("dialects") harnesses speak to their model provider:
 * - `responses`: OpenAI Responses (Codex);
 * - `chat-completions`: OpenAI Chat Completions (OpenCode and OpenAI-compatible agents);
 * - `anthropic-messages`: Anthropic Messages (Claude Code);
 * - `gemini`: the Gemini API (Gemini CLI).
 */
export type ProviderDialect = "responses" | "chat-completions" | "anthropic-messages" | "gemini";

/** Every {@link ProviderDialect}, in a stable order (for messages and validation). */
export const PROVIDER_DIALECTS: readonly ProviderDialect[] = Object.freeze([
  "responses",
  "chat-completions",
  "anthropic-messages",
  "gemini",
]);

/**
 * A model endpoint in one dialect: the scripted model, a local server, a proxy, a vendor.
 *
 * @example
 * ```ts
 * const provider: ModelProvider = { name: "scripted", baseUrl: "http://127.0.0.1:4000/v1", wireApi: "responses" };
 * ```
 */
export interface ModelProvider {
  /** An identifier for the provider (`[a-zA-Z0-9_-]`), e.g. `scripted`. */
  readonly name: string;
  /**
   * The base URL, as the vendor's own SDK takes it: OpenAI-style dialects include `/v1`
   * (requests go to `<baseUrl>/responses`, `<baseUrl>/chat/completions`); Anthropic and
   * Gemini do not (`<baseUrl>/v1/messages`, `<baseUrl>/v1beta/models/...`).
   */
  readonly baseUrl: string;
  /** The API this endpoint speaks. */
  readonly wireApi: ProviderDialect;
  /**
   * Name of the child environment variable holding the API key, if the provider needs
   * one. The value comes from the selection's `credentialEnv`; only the name is written.
   */
  readonly envKey?: string;
}

/** One agent selection: a harness, one model, and how to launch it. */
export interface SelectionSpec {
  readonly harness: string;
  readonly model: string;
  /** A display name; defaults to `harness:model`. */
  readonly name: string;
  /** The harness executable, when not found the adapter's default way. */
  readonly executable?: string;
  /** Credentials to copy into the harness's environment: `{ CHILD_NAME: "PARENT_NAME" }`. */
  readonly credentialEnv: Readonly<Record<string, string>>;
  readonly provider?: ModelProvider;
  /** Adapter-specific options, passed through untouched. */
  readonly options: Readonly<Record<string, unknown>>;
}

/**
 * Answers of readiness probes that a runner keeps across runs (jest-m3 keeps them in
 * `<resultsDir>/cache/probes.json`). A harness may keep here what depends only on things it
 * can name in the key: an agent binary's answer to `initialize`, keyed by the binary's
 * path, size and modification time, so a changed binary is probed again. Never a secret,
 * never anything that depends on the provider, the credentials or the machine's moment.
 */
export interface ProbeCache {
  /** The JSON value stored under `key` by an earlier run, or `undefined`. */
  get(key: string): unknown;
  /** Stores `value` (plain JSON) under `key` for later runs. */
  set(key: string, value: unknown): void;
}

/** What {@link HarnessDefinition.readiness} gets. */
export interface ReadinessContext {
  readonly selection: SelectionSpec;
  /** The kit's configuration environment (`M3_*` variables). Not the harness's. */
  readonly config: Readonly<Record<string, string | undefined>>;
  /** Names of credential variables whose values are available (never the values). */
  readonly credentialNames: readonly string[];
  /** Probe answers kept across runs, when the runner keeps them (see {@link ProbeCache}). */
  readonly probeCache?: ProbeCache;
}

/** An event an adapter wants kept in the session's trace (an approval decision, say). */
export interface HarnessEvent {
  readonly kind: "approval" | "harness" | "stderr";
  readonly detail: string;
}

/** Everything an adapter needs to open one session. */
export interface HarnessLaunch {
  readonly model: string;
  readonly selection: SelectionSpec;
  /** The kit's configuration environment (`M3_*` variables), as readiness got it. Not the harness's. */
  readonly config: Readonly<Record<string, string | undefined>>;
  /** The session's servers, already wrapped for wire capture: launch these, never the originals. */
  readonly servers: readonly CapturedServer[];
  /** The session's allow-list per server (`undefined` = all tools of that server). */
  readonly toolPolicy: ToolPolicy;
  /** A fresh, empty working directory for the agent, removed with the kit. */
  readonly workspace: string;
  /**
   * The kind of workspace the test gave the session (`agent.session({ workspace })`), whose
   * copy or worktree `workspace` then is; absent when it is an empty temporary folder. An
   * agent process that cannot work in `workspace` (one kept warm in a folder of its own)
   * must refuse a session that has one.
   */
  readonly workspaceKind?: "copy" | "gitWorktree" | "readOnly";
  /**
   * The harness's environment: an allow-list of the parent's (PATH, locale, temp dir) plus
   * the mapped credentials. Add what the harness needs; never merge in `process.env`.
   */
  readonly env: Readonly<Record<string, string>>;
  /** Names of the credential variables in `env`. */
  readonly credentials: readonly string[];
  readonly provider?: ModelProvider;
  /** Aborted when the session is being torn down. */
  readonly signal: AbortSignal;
  /** A fresh temporary directory owned by the kit (for a harness home, say). */
  tempDir(prefix: string): Promise<string>;
  /** Starts a process owned by the kit: own process group, stopped with the kit. */
  spawn(launch: ProcessLaunch): ManagedProcess;
  /** Keeps an event in the session's trace. */
  record(event: HarnessEvent): void;
  /**
   * The session's elicitation plan, as a responder: present only when the test gave one
   * (`agent.session({ elicitation })`), and then only if readiness said `elicitation` is
   * usable. Without it, answer elicitations as the adapter always has (decline).
   */
  readonly elicitation?: ElicitationResponder;
}

/** How a turn ended. */
export type AdapterTurnOutcome = "completed" | "failed" | "timed_out" | "cancelled" | "interrupted";

/** One turn as the adapter saw it. */
export interface AdapterTurn {
  readonly outcome: AdapterTurnOutcome;
  /** The agent's final reply, or null when there was none. */
  readonly response: { readonly text: string } | null;
  /** What went wrong, in the harness's words, when the turn did not complete. */
  readonly error: string | null;
  readonly toolCalls: readonly ReportedToolCall[];
  /** The harness's raw events for this turn, for transcripts. */
  readonly events: readonly unknown[];
  /**
   * The tokens the agent itself reported for this turn in its own events, when it reports
   * any. jest-m3 uses them when no provider tap stands between the agent and its model.
   */
  readonly usage?: AgentReportedUsage;
}

/**
 * Token usage as an agent's own events report it for one turn (nothing on the wire was
 * read). `inputTokens` counts the whole prompt, cached part included; `outputTokens`
 * everything generated, reasoning included.
 *
 * @example
 * ```ts
 * const usage: AgentReportedUsage = { inputTokens: 1200, outputTokens: 40, cachedInputTokens: 1000, reports: 2 };
 * ```
 */
export interface AgentReportedUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** The part of `inputTokens` read from a cache, when the agent says. */
  readonly cachedInputTokens?: number;
  /** The part of `outputTokens` spent reasoning, when the agent says. */
  readonly reasoningTokens?: number;
  /** How many usage reports (model requests, as far as the agent tells) the numbers add up. */
  readonly reports: number;
}

/** What {@link HarnessSession.send} gets. */
export interface AdapterTurnRequest {
  readonly text: string;
  /** The core's id for this turn. */
  readonly turnId: string;
  /** The turn's time budget. Core enforces it; the adapter may use it for its own waits. */
  readonly timeoutMs: number;
  /** Aborted when the turn times out or is cancelled: resolve `send` promptly then. */
  readonly signal: AbortSignal;
}

/** Whether the harness is still running, and what it said last if not. */
export interface HarnessHealth {
  readonly alive: boolean;
  readonly stderrTail?: string;
  readonly exit?: string;
}

/** One open conversation with an agent. */
export interface HarnessSession {
  /** The harness's id for the conversation (Codex: the thread id). Stable across turns. */
  readonly id: string;
  /** Sends one user turn and resolves when the turn is over. */
  send(turn: AdapterTurnRequest): Promise<AdapterTurn>;
  /** Interrupts the running turn, if the harness can. */
  interrupt?(): Promise<void>;
  /** Is the harness alive? Used to tell a failed turn from a dead session. */
  health(): HarnessHealth;
  /** Ends the conversation and every process of it. Idempotent. */
  close(): Promise<void>;
}

/** An adapter. Build one with {@link defineHarness}. */
export interface HarnessDefinition {
  readonly name: string;
  /**
   * Other names a selection may use for this harness (`claude` for `claude-code`, say).
   * The registry resolves an alias to this definition when it is registered on the kit.
   */
  readonly aliases?: readonly string[];
  /**
   * The provider dialects this harness can talk to, preferred first. A selection's
   * explicit provider must speak one of them; a run provider (the scripted model) is
   * asked for the first it serves. Defaults to `["responses"]`.
   */
  readonly dialects?: readonly ProviderDialect[];
  /**
   * Where the agent reports its own token usage (in words: "Codex's thread/tokenUsage/updated
   * notifications"), when its adapter reads it into {@link AdapterTurn.usage}. Readiness
   * names it for a selection no provider tap can stand in front of.
   */
  readonly reportedUsage?: string;
  /** Checks, without starting a session, what this harness can do with this selection. */
  readiness(context: ReadinessContext): Promise<Readiness>;
  /**
   * What a readiness answer depends on, as a string (e.g. the resolved executable, the
   * credential names, whether there is a provider). Equal keys share one probe, within a
   * process and, through a test runner's global setup, across its workers. Without it,
   * core keys on the selection and the `M3_*` configuration.
   */
  readinessKey?(context: ReadinessContext): string;
  /** Opens a session. Throw {@link HarnessStartError} with the harness's words on failure. */
  open(launch: HarnessLaunch): Promise<HarnessSession>;
}

/** The harness could not open a session (it exited, a server failed to start, ...). */
export class HarnessStartError extends M3Error {
  override readonly code = "M3_HARNESS_START";
  readonly harness: string;
  readonly stderrTail: string;
  constructor(
    harness: string,
    message: string,
    details: { stderrTail?: string; cause?: unknown } = {},
  ) {
    super(
      `Harness "${harness}" could not open a session: ${message}${stderrSection(details.stderrTail)}`,
      {
        cause: details.cause,
      },
    );
    this.harness = harness;
    this.stderrTail = details.stderrTail ?? "";
  }
}

/**
 * Declares a harness adapter, checking its shape.
 *
 * @example
 * ```ts
 * export default defineHarness({
 *   name: "echo",
 *   async readiness({ selection }) { ... },
 *   async open(launch) { return { id: "s1", send, health: () => ({ alive: true }), close }; },
 * });
 * ```
 */
export function defineHarness(definition: HarnessDefinition): HarnessDefinition {
  if (typeof definition !== "object" || definition === null) {
    throw new InvalidHarness("defineHarness() needs an object { name, readiness, open }.");
  }
  if (typeof definition.name !== "string" || !/^[a-z0-9][a-z0-9-]*$/.test(definition.name)) {
    throw new InvalidHarness(
      `defineHarness(): name must be lowercase letters, digits and dashes, got ${JSON.stringify(definition.name)}.`,
    );
  }
  for (const method of ["readiness", "open"] as const) {
    if (typeof definition[method] !== "function") {
      throw new InvalidHarness(
        `defineHarness(): harness "${definition.name}" has no ${method}() function.`,
      );
    }
  }
  return Object.freeze({ ...definition });
}

/** True when the tool may be called under `policy`. */
export function isToolAllowed(policy: ToolPolicy, server: string, tool: string): boolean {
  if (!policy.has(server)) return false;
  const allowed = policy.get(server);
  return allowed === undefined || allowed.has(tool);
}
