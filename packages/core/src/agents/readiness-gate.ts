import { HarnessNotReady } from "../errors.js";
import { describeCapability, isUsable, type Readiness } from "../harness/contract.js";

/** What a session needs of its harness. */
export interface SessionNeeds {
  /** Several turns (every `agent.session()`; not `agent.run()`). */
  readonly multiTurn: boolean;
  /** An allow-list was given. */
  readonly toolPolicy: boolean;
  /** An elicitation plan was given. */
  readonly elicitation?: boolean;
}

/**
 * Lets a session start only when every capability it needs is usable (ready or degraded);
 * an adapter may honestly lack the rest.
 *
 * @throws {@link HarnessNotReady} listing every blocking reason.
 */
export function assertReadyFor(harness: string, readiness: Readiness, needs: SessionNeeds): void {
  const needed: string[] = [];
  if (needs.multiTurn) needed.push("multiTurn");
  if (needs.toolPolicy) needed.push("toolPolicy");
  if (needs.elicitation) needed.push("elicitation");
  needed.push("wireEvidence", "credentials");
  const reasons = needed
    .filter((name) => !isUsable(readiness.capabilities[name]))
    .map((name) => describeCapability(name, readiness.capabilities[name]));
  if (reasons.length > 0) throw new HarnessNotReady(harness, reasons);
}
