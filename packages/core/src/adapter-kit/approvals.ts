/**
 * Tool approvals answered from the session's allow-list, in one wording for every agent:
 * the decision and the line the session's transcript records for it; and an agent's
 * elicitation turned into the request the session's plan answers.
 *
 * @example
 * ```ts
 * const decision = toolDecision(launch.toolPolicy, "shipping", "shipping_quote");
 * launch.record({ kind: "approval", detail: decision.detail });
 * return decision.allowed ? { outcome: "allow" } : { outcome: "deny" };
 * ```
 */
import { isToolAllowed, type HarnessLaunch } from "../harness/contract.js";
import type { AgentElicitationRequest } from "../harness/elicitation-responder.js";

/** The session's allow-list (`launch.toolPolicy`). */
type ToolPolicy = HarnessLaunch["toolPolicy"];

/** What the allow-list says about one tool call, and how the transcript words it. */
export interface ToolDecision {
  readonly allowed: boolean;
  /** E.g. `accepted shipping:shipping_quote (in the session's allow-list)`. */
  readonly detail: string;
}

/** Whether `server:tool` may be called in this session, with the transcript's line for it. */
export function toolDecision(policy: ToolPolicy, server: string, tool: string): ToolDecision {
  const allowed = isToolAllowed(policy, server, tool);
  return {
    allowed,
    detail: allowed
      ? `accepted ${server}:${tool} (in the session's allow-list)`
      : `declined ${server}:${tool} (not in the session's allow-list)`,
  };
}

/** An elicitation as an agent passes it on, in whatever shape its protocol has. */
export interface AgentElicitation {
  readonly server: string;
  readonly mode?: unknown;
  readonly message?: string | null;
  readonly requestedSchema?: unknown;
  readonly url?: unknown;
  readonly elicitationId?: unknown;
}

/**
 * The request for `launch.elicitation.answer()`: `url` mode only when the agent says so,
 * an empty message for none, and the schema, URL and id only when the agent gave them.
 */
export function elicitationRequest(ask: AgentElicitation): AgentElicitationRequest {
  const { requestedSchema, url, elicitationId } = ask;
  return {
    server: ask.server,
    mode: ask.mode === "url" ? "url" : "form",
    message: ask.message ?? "",
    ...(typeof requestedSchema === "object" && requestedSchema !== null
      ? { requestedSchema: requestedSchema as Readonly<Record<string, unknown>> }
      : {}),
    ...(typeof url === "string" ? { url } : {}),
    ...(typeof elicitationId === "string" ? { elicitationId } : {}),
  };
}
