import { InvalidSessionOptions } from "../errors.js";
import { resolveServers, type ResolvedServer, type ServerSpec } from "../servers/spec.js";
import { parseToolPolicy, type ToolPolicy } from "../servers/tool-policy.js";
import type { ElicitationPlan, ElicitationPlanInput } from "../direct/elicitation-plan.js";
import { resolveSessionElicitation } from "./session-elicitation.js";

/** Options of `agent.session()`. */
export interface SessionOptions {
  /** The one server of the session (or use `servers`). */
  readonly server?: ServerSpec;
  /** Several servers; names must be unique. */
  readonly servers?: readonly ServerSpec[];
  /** Allow-list `["server:tool", ...]`; omitted = all tools, `[]` = none. */
  readonly tools?: readonly string[];
  /** Default budget of each turn and of startup, in ms (default 120 000). */
  readonly timeout?: number;
  /**
   * What to answer when a server asks for input through the agent (an elicitation plan,
   * or one answer for all). Needs a harness whose readiness says `elicitation` is usable.
   */
  readonly elicitation?: ElicitationPlanInput;
}

/** Options of `send()`. */
export interface SendOptions {
  /** This turn's budget in ms; defaults to the session's `timeout`. */
  readonly timeout?: number;
}

/**
 * A session's options, checked and resolved once when the session is created: what the
 * wire capture and the harness receive, so nothing resolves the specs twice.
 */
export interface SessionSpec {
  readonly servers: readonly ResolvedServer[];
  /** The allow-list as the user wrote it (`undefined` = all tools). */
  readonly tools: readonly string[] | undefined;
  readonly policy: ToolPolicy;
  readonly timeoutMs: number;
  /** The session's elicitation plan, if it has one. */
  readonly elicitation?: ElicitationPlan;
}

const SESSION_KEYS = ["server", "servers", "tools", "timeout", "elicitation"];
const DEFAULT_TIMEOUT_MS = 120_000;

/** The longest timer Node keeps: a longer one fires after 1 ms. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** A positive number of milliseconds (at most {@link MAX_TIMEOUT_MS}), or undefined when not given. */
export function positiveMs(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new InvalidSessionOptions(
      field,
      `must be a positive number of milliseconds, got ${JSON.stringify(value)}.`,
    );
  }
  if (value > MAX_TIMEOUT_MS) {
    throw new InvalidSessionOptions(
      field,
      `must be at most ${MAX_TIMEOUT_MS} ms (about 24.8 days; Node fires longer timers at once), got ${value}.`,
    );
  }
  return value;
}

const SEND_KEYS = ["timeout"];

/**
 * Checks `send()` options before the turn starts.
 *
 * @throws {@link InvalidSessionOptions} for an unknown option or a bad timeout.
 */
export function resolveSendOptions(options: unknown): { timeoutMs: number | undefined } {
  if (options === undefined) return { timeoutMs: undefined };
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new InvalidSessionOptions("(send options)", "send() takes { timeout? } as its options.");
  }
  for (const key of Object.keys(options)) {
    if (!SEND_KEYS.includes(key)) {
      throw new InvalidSessionOptions(
        key,
        `is not a send() option; the options are ${SEND_KEYS.join(", ")}.`,
      );
    }
  }
  return { timeoutMs: positiveMs((options as SendOptions).timeout, "timeout") };
}

/**
 * Checks and resolves `agent.session()` options, before anything starts.
 *
 * @throws {@link InvalidSessionOptions}, {@link InvalidServerSpec} or {@link InvalidToolPolicy}.
 */
export function resolveSessionOptions(options: unknown, cwd: string): SessionSpec {
  if (typeof options !== "object" || options === null) {
    throw new InvalidSessionOptions(
      "(options)",
      "agent.session() needs options { server | servers, tools?, timeout? }.",
    );
  }
  const record = options as SessionOptions;
  for (const key of Object.keys(record)) {
    if (!SESSION_KEYS.includes(key)) {
      throw new InvalidSessionOptions(
        key,
        `is unknown; the options are ${SESSION_KEYS.join(", ")}.`,
      );
    }
  }
  if (record.server !== undefined && record.servers !== undefined) {
    throw new InvalidSessionOptions("servers", 'give either "server" or "servers", not both.');
  }
  const specs = record.servers ?? (record.server !== undefined ? [record.server] : []);
  if (!Array.isArray(specs)) {
    throw new InvalidSessionOptions("servers", "must be an array of server specs.");
  }
  if (specs.length === 0) {
    throw new InvalidSessionOptions(
      record.servers !== undefined ? "servers" : "server",
      "names no server: a session tests an MCP server, so give `server` (or a non-empty `servers`). " +
        "Without one, every assertion that a call did not happen would pass for nothing.",
    );
  }
  const servers = resolveServers(specs, cwd);
  const elicitation = resolveSessionElicitation(record.elicitation);
  return {
    servers,
    tools: record.tools,
    policy: parseToolPolicy(
      record.tools,
      servers.map((server) => server.name),
    ),
    timeoutMs: positiveMs(record.timeout, "timeout") ?? DEFAULT_TIMEOUT_MS,
    ...(elicitation ? { elicitation } : {}),
  };
}
