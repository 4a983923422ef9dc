import {
  ActivePlan,
  parseElicitationPlan,
  type ElicitationAnswer,
  type ElicitationPlan,
} from "../direct/elicitation-plan.js";
import type {
  AgentElicitationRequest,
  ElicitationDecision,
  ElicitationDecisionSource,
  ElicitationResponder,
} from "../harness/elicitation-responder.js";

/**
 * Checks a session's `elicitation` option (a plan, or one answer for every elicitation)
 * when the session is created, so a mistake fails before anything starts.
 *
 * @throws {@link InvalidArgument} naming the field that is wrong.
 */
export function resolveSessionElicitation(value: unknown): ElicitationPlan | undefined {
  if (value === undefined) return undefined;
  return parseElicitationPlan(value, "agent.session(): elicitation");
}

function describeAnswer(answer: ElicitationAnswer): string {
  return answer.action === "accept" && answer.content !== undefined
    ? `accept with ${Object.keys(answer.content).join(", ") || "no fields"}`
    : answer.action;
}

/**
 * A session's plan answering the elicitations its adapter passes on. Rule uses (`times`)
 * count across the session; rounds (`roundLimit`) count per turn. An elicitation no rule
 * answers, one past the round limit, and one whose answer function throws are declined:
 * an agent turn has no call to fail, so the decline and its reason are recorded instead,
 * and the server sees it on the wire.
 */
export class PlanResponder implements ElicitationResponder {
  private readonly active: ActivePlan;

  constructor(
    plan: ElicitationPlan,
    private readonly record: (detail: string) => void,
  ) {
    this.active = new ActivePlan(plan);
  }

  /** A new turn: rounds count from zero again. */
  startTurn(): void {
    this.active.resetRounds();
  }

  async answer(request: AgentElicitationRequest): Promise<ElicitationDecision> {
    const decided = await this.decide(request);
    const what = `elicitation from ${request.server} (${request.mode} ${JSON.stringify(request.message)})`;
    const detail = `${what}: ${describeAnswer(decided.answer)} (${decided.why})`;
    this.record(detail);
    return { answer: decided.answer, source: decided.source, detail };
  }

  private async decide(request: AgentElicitationRequest): Promise<{
    answer: ElicitationAnswer;
    source: ElicitationDecisionSource;
    why: string;
  }> {
    const decline = { action: "decline" } as const;
    if (!this.active.countRound()) {
      return {
        answer: decline,
        source: "round_limit",
        why: `declined: more than the plan's roundLimit of ${this.active.roundLimit} in one turn`,
      };
    }
    const taken = this.active.take(request);
    if (!taken) {
      return {
        answer: decline,
        source: "unplanned",
        why: "declined: no rule of the plan matches",
      };
    }
    const rule = `rule ${taken.index + 1}`;
    try {
      const answer =
        typeof taken.rule.answer === "function"
          ? await taken.rule.answer(request)
          : taken.rule.answer;
      parseElicitationPlan(answer, `the answer of ${rule}`);
      return { answer, source: "planned", why: rule };
    } catch (error) {
      return {
        answer: decline,
        source: "rule_error",
        why: `declined: ${rule}'s answer failed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }
}
