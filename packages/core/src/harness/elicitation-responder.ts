/**
 * The session's answers to elicitations that reach an agent: an MCP server asks the agent
 * for input (`elicitation/create`), the agent asks its client (the adapter), and the
 * adapter asks this responder instead of a user. Part of the open harness contract.
 */
import type { ElicitationAnswer, ElicitationRequest } from "../direct/elicitation-plan.js";

export type { ElicitationAnswer, ElicitationRequest };

/** An elicitation as an adapter passes it on: the request and the server that sent it. */
export interface AgentElicitationRequest extends ElicitationRequest {
  /** The MCP server's name, as the session bound it. */
  readonly server: string;
}

/**
 * How the responder answered:
 * - `planned`: a rule of the test's plan answered;
 * - `unplanned`: no rule matched; declined;
 * - `round_limit`: more elicitations in this turn than the plan's `roundLimit`; declined;
 * - `rule_error`: the rule's answer function threw; declined.
 */
export type ElicitationDecisionSource = "planned" | "unplanned" | "round_limit" | "rule_error";

/** The responder's answer to one elicitation. */
export interface ElicitationDecision {
  /** What to send back (a plain answer, never a function). */
  readonly answer: ElicitationAnswer;
  readonly source: ElicitationDecisionSource;
  /** One line for transcripts, e.g. `desk asked "Which seat?": accept (rule 1)`. */
  readonly detail: string;
}

/**
 * Answers elicitations from the session's plan. Given to an adapter as
 * `HarnessLaunch.elicitation` only when the session has a plan; it never throws, and it
 * records each answer in the session's trace itself. An adapter whose agent passes MCP
 * elicitations on calls {@link ElicitationResponder.answer} and sends the answer back in
 * its agent's own protocol.
 *
 * @example
 * ```ts
 * const decision = await launch.elicitation?.answer({ server: "desk", mode: "form", message, requestedSchema });
 * reply(decision?.answer ?? { action: "decline" });
 * ```
 */
export interface ElicitationResponder {
  answer(request: AgentElicitationRequest): Promise<ElicitationDecision>;
}
