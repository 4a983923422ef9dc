/**
 * Tool approvals answered from the session's allow-list, in one wording for every agent:
 * the decision and the line the session's transcript records for it.
 *
 * @example
 * ```ts
 * const decision = toolDecision(launch.toolPolicy, "shipping", "shipping_quote");
 * launch.record({ kind: "approval", detail: decision.detail });
 * return decision.allowed ? { outcome: "allow" } : { outcome: "deny" };
 * ```
 */
import { isToolAllowed, type HarnessLaunch } from "../harness/contract.js";

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
