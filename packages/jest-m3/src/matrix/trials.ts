/**
 * Trials: one test body run several times (a fresh session each), passing when enough
 * runs pass. Agents are not deterministic; a pass rate measures that instead of hiding it.
 */
import { expect } from "@jest/globals";
import { InvalidArgument, M3Error } from "@jest-m3/core";
import { appendRecord } from "../run-ledger.js";
import { runDir } from "../run-state.js";
import type { MatrixAgent } from "./agent-list.js";
import { checkTrialRequirement } from "./trial-requirement.js";
import { wilsonInterval } from "./wilson.js";

export { wilsonInterval };

/** What a test needs from its trials: at least N passes, or a minimum pass rate. */
export interface TrialRequirement {
  /** Passing trials needed (default: every trial). */
  readonly atLeast?: number;
  /** The smallest pass rate accepted, from 0 to 1. */
  readonly minRate?: number;
}

/** One trial's verdict. */
export interface TrialVerdict {
  /** 1-based. */
  readonly trial: number;
  readonly passed: boolean;
  /** The first lines of the failure, when it failed. */
  readonly error: string | null;
  readonly durationMs: number;
}

/** The trials of one test and their statistics. */
export interface TrialsSummary {
  readonly trials: number;
  readonly passed: number;
  /** passed / trials. */
  readonly rate: number;
  /** Wilson 95% confidence interval of the pass rate. */
  readonly interval: readonly [number, number];
  /** Probability that at least one of k fresh trials passes (unbiased estimate), k = 1..n. */
  readonly passAtK: readonly number[];
  /** Probability that all of k fresh trials pass (pass^k), k = 1..n. */
  readonly passHatK: readonly number[];
  readonly verdicts: readonly TrialVerdict[];
}

/** Not enough trials passed. The message lists every trial's verdict. */
export class TrialsFailed extends M3Error {
  override readonly code = "M3_TRIALS_FAILED";
  constructor(
    readonly summary: TrialsSummary,
    need: string,
  ) {
    super(
      `${summary.passed} of ${summary.trials} trials passed; the test needs ${need}.\n` +
        summary.verdicts
          .map(
            (verdict) =>
              `  trial ${verdict.trial}: ${verdict.passed ? "passed" : "FAILED"} (${verdict.durationMs} ms)` +
              (verdict.error
                ? `\n    ${verdict.error.split("\n").slice(0, 6).join("\n    ")}`
                : ""),
          )
          .join("\n"),
    );
  }
}

let running: number | null = null;

/** The trial being run in this test file, for transcripts (null outside trials). */
export function currentTrial(): number | null {
  return running;
}

function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
  return result;
}

/** The statistics of a set of verdicts. */
export function summarize(verdicts: readonly TrialVerdict[]): TrialsSummary {
  const n = verdicts.length;
  const c = verdicts.filter((verdict) => verdict.passed).length;
  const ks = Array.from({ length: n }, (_, index) => index + 1);
  return {
    trials: n,
    passed: c,
    rate: n === 0 ? 0 : c / n,
    interval: wilsonInterval(c, n),
    passAtK: ks.map((k) => 1 - choose(n - c, k) / choose(n, k)),
    passHatK: ks.map((k) => choose(c, k) / choose(n, k)),
    verdicts,
  };
}

function needed(requirement: TrialRequirement, trials: number): { atLeast: number; text: string } {
  if (requirement.atLeast !== undefined && requirement.minRate !== undefined) {
    throw new InvalidArgument("trials(): give atLeast or minRate, not both.");
  }
  if (requirement.minRate !== undefined) {
    const rate = requirement.minRate;
    if (typeof rate !== "number" || !(rate >= 0 && rate <= 1)) {
      throw new InvalidArgument(
        `trials(): minRate must be a number from 0 to 1, got ${JSON.stringify(rate)}.`,
      );
    }
    return { atLeast: Math.ceil(rate * trials - 1e-9), text: `a pass rate of at least ${rate}` };
  }
  const atLeast = requirement.atLeast ?? trials;
  if (!Number.isInteger(atLeast) || atLeast < 1 || atLeast > trials) {
    throw new InvalidArgument(
      `trials(): atLeast must be a whole number from 1 to ${trials} (the trials run), got ${JSON.stringify(atLeast)}.`,
    );
  }
  return { atLeast, text: `at least ${atLeast} of ${trials}` };
}

/**
 * Runs `body` once per trial of `agent` (or `count` times), each on its own; any thrown
 * error (a failed `expect`, a timeout) fails that trial only. Resolves with the summary
 * when enough trials passed; otherwise throws {@link TrialsFailed} listing every trial.
 * The summary is recorded for the run's pass-rate table and report.
 *
 * @example
 * ```ts
 * describeAgents("seed", (agent) => {
 *   test("quotes twice", async () => {
 *     await trials(agent, async () => { ... expect(result).toHaveToolCall(...) ... }, { atLeast: 4 });
 *   });
 * });
 * ```
 */
export async function trials(
  agent: MatrixAgent | number,
  body: (trial: number) => Promise<void>,
  requirement: TrialRequirement = {},
): Promise<TrialsSummary> {
  checkTrialRequirement(requirement);
  const count = typeof agent === "number" ? agent : agent.trials;
  if (!Number.isInteger(count) || count < 1) {
    throw new InvalidArgument(
      `trials(): the number of trials must be a positive whole number, got ${JSON.stringify(count)}.`,
    );
  }
  const need = needed(requirement, count);
  const verdicts: TrialVerdict[] = [];
  for (let trial = 1; trial <= count; trial++) {
    const started = Date.now();
    running = trial;
    try {
      await body(trial);
      verdicts.push({ trial, passed: true, error: null, durationMs: Date.now() - started });
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      verdicts.push({ trial, passed: false, error: text, durationMs: Date.now() - started });
    } finally {
      running = null;
    }
  }
  const summary = summarize(verdicts);
  const dir = runDir();
  if (dir) {
    appendRecord(dir, "trials", {
      testPath: expect.getState().testPath ?? "",
      testName: expect.getState().currentTestName ?? "",
      agent:
        typeof agent === "number"
          ? null
          : { harness: agent.harness, model: agent.model, version: agent.version },
      need: need.text,
      ...summary,
    });
  }
  if (summary.passed < need.atLeast) throw new TrialsFailed(summary, need.text);
  return summary;
}
