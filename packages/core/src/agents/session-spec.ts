import { z } from "zod";
import { InvalidSessionOptions } from "../errors.js";
import { checkInput, type InputProblem } from "../validation/check-input.js";
import { must, positiveMs, strictFields } from "../validation/rules.js";
import { resolveServers, type ResolvedServer, type ServerSpec } from "../servers/spec.js";
import { parseToolPolicy, type ToolPolicy } from "../servers/tool-policy.js";
import type { ElicitationPlan, ElicitationPlanInput } from "../direct/elicitation-plan.js";
import { resolveSessionElicitation } from "./session-elicitation.js";
import { resolveWorkspace, type WorkspaceOptions, type WorkspaceSpec } from "../workspace/spec.js";

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
  /**
   * The agent's working directory, made fresh for this session: a copy of a folder, a git
   * worktree at a ref, or a read-only copy. Its diff is `result.workspace`; a stdio server
   * with `cwd: "workspace"` starts in it.
   */
  readonly workspace?: WorkspaceOptions;
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
  /** The session's workspace, checked against the disk. */
  readonly workspace?: WorkspaceSpec;
}

const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * The fields of `agent.session()` options, one schema each. A new option is one entry
 * here (its schema, in its own module) and one line in {@link resolveSessionOptions}
 * reading the checked value; the unknown-option message lists it by itself.
 */
const sessionOptionFields = {
  server: z.unknown().optional(),
  servers: z.array(z.unknown(), must("an array of server specs")).optional(),
  // Checked with the servers, by the tool policy (its entries must name a bound server).
  tools: z.unknown().optional(),
  timeout: positiveMs.optional(),
  // Checked by resolveSessionElicitation (the same plan shape as direct calls).
  elicitation: z.unknown().optional(),
  // Checked by resolveWorkspace (against the disk, and git for a worktree's ref).
  workspace: z.unknown().optional(),
};

/** `agent.session()` options, with the rules between fields. */
export const sessionOptionsSchema = strictFields(sessionOptionFields, {
  unknown: "is unknown",
  listed: "the options are",
  notAnObject: () =>
    "agent.session() needs options { server | servers, tools?, timeout?, elicitation?, workspace? }.",
}).superRefine((options, context) => {
  if (options.server !== undefined && options.servers !== undefined) {
    context.addIssue({
      code: "custom",
      path: ["servers"],
      message: 'give either "server" or "servers", not both.',
    });
  } else if (options.server === undefined && (options.servers ?? []).length === 0) {
    context.addIssue({
      code: "custom",
      path: [options.servers !== undefined ? "servers" : "server"],
      message:
        "names no server: a session tests an MCP server, so give `server` (or a non-empty `servers`). " +
        "Without one, every assertion that a call did not happen would pass for nothing.",
    });
  }
});

/** `send()` options. */
export const sendOptionsSchema = strictFields(
  { timeout: positiveMs.optional() },
  {
    unknown: "is not a send() option",
    listed: "the options are",
    notAnObject: () => "send() takes { timeout? } as its options.",
  },
).optional();

const refuseOption = (problem: InputProblem): InvalidSessionOptions =>
  new InvalidSessionOptions(problem.field === "" ? "(options)" : problem.field, problem.problem);

/**
 * Checks `send()` options before the turn starts.
 *
 * @throws {@link InvalidSessionOptions} for an unknown option or a bad timeout.
 */
export function resolveSendOptions(options: unknown): { timeoutMs: number | undefined } {
  const checked = checkInput(sendOptionsSchema, options, (problem) =>
    problem.field === ""
      ? new InvalidSessionOptions("(send options)", problem.problem)
      : refuseOption(problem),
  );
  return { timeoutMs: checked?.timeout };
}

/**
 * Checks and resolves `agent.session()` options, before anything starts.
 *
 * @throws {@link InvalidSessionOptions}, {@link InvalidServerSpec} or {@link InvalidToolPolicy}.
 */
export function resolveSessionOptions(options: unknown, cwd: string): SessionSpec {
  const checked = checkInput(sessionOptionsSchema, options, refuseOption);
  const servers =
    checked.servers === undefined
      ? resolveServers([checked.server], cwd, () => "server", { workspace: true })
      : resolveServers(checked.servers, cwd, undefined, { workspace: true });
  const tools = checked.tools as readonly string[] | undefined;
  const elicitation = resolveSessionElicitation(checked.elicitation);
  const workspace =
    checked.workspace === undefined ? undefined : resolveWorkspace(checked.workspace, cwd);
  return {
    servers,
    tools,
    policy: parseToolPolicy(
      tools,
      servers.map((server) => server.name),
    ),
    timeoutMs: checked.timeout ?? DEFAULT_TIMEOUT_MS,
    ...(elicitation ? { elicitation } : {}),
    ...(workspace ? { workspace } : {}),
  };
}
