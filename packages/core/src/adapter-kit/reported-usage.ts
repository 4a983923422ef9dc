/**
 * Adding up the token usage an agent reports in its own events over one turn (one report
 * per model request, or one per turn), for {@link AdapterTurn.usage}.
 */
import type { AdapterTurn, AgentReportedUsage } from "../harness/contract.js";

const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;

/**
 * The usage reports of one turn, added up. A detail (cached, reasoning) is kept only when
 * every report gave it: a sum that silently left one out would be too low.
 *
 * @example
 * ```ts
 * const tally = new UsageTally();
 * tally.add({ inputTokens: 1200, outputTokens: 40 });
 * const turn: AdapterTurn = { ...rest, ...tally.turnUsage() };
 * ```
 */
export class UsageTally {
  private input = 0;
  private output = 0;
  private cached: number | undefined = 0;
  private reasoning: number | undefined = 0;
  private reports = 0;

  /**
   * Adds one report, in the agent's numbers (`inputTokens` with the cached part included,
   * `outputTokens` with reasoning); one whose input or output is not a count is ignored.
   */
  add(report: {
    readonly inputTokens: unknown;
    readonly outputTokens: unknown;
    readonly cachedInputTokens?: unknown;
    readonly reasoningTokens?: unknown;
  }): void {
    const input = count(report.inputTokens);
    const output = count(report.outputTokens);
    if (input === undefined || output === undefined) return;
    const cached = count(report.cachedInputTokens);
    const reasoning = count(report.reasoningTokens);
    this.input += input;
    this.output += output;
    this.cached =
      this.cached === undefined || cached === undefined ? undefined : this.cached + cached;
    this.reasoning =
      this.reasoning === undefined || reasoning === undefined
        ? undefined
        : this.reasoning + reasoning;
    this.reports += 1;
  }

  /** The sum so far, or undefined when no report came. */
  get usage(): AgentReportedUsage | undefined {
    if (this.reports === 0) return undefined;
    return {
      inputTokens: this.input,
      outputTokens: this.output,
      ...(this.cached === undefined ? {} : { cachedInputTokens: this.cached }),
      ...(this.reasoning === undefined ? {} : { reasoningTokens: this.reasoning }),
      reports: this.reports,
    };
  }

  /** `{ usage }` to spread into an {@link AdapterTurn}, or `{}` when no report came. */
  turnUsage(): Pick<AdapterTurn, "usage"> {
    const usage = this.usage;
    return usage === undefined ? {} : { usage };
  }
}
