/**
 * Trials: one test body run several times (a fresh session each), passing when enough
 * runs pass. Agents are not deterministic; a pass rate measures that instead of hiding it.
 */
import { expect } from "@jest/globals";
import { InvalidArgument, M3Error } from "@jest-m3/core";
import { defaultRuntime } from "@jest-m3/core/runner";
import { appendRecord } from "../shared/run-ledger.js";
import { runDir } from "../shared/hand-off.js";
import {
  decideTrials,
  describeStop,
  type SequentialPlan,
  type TrialsStop,
} from "../stats/sequential.js";
import type { MatrixAgent } from "../shared/agent-list.js";
import { checkTrialRequirement } from "./trial-requirement.js";
import { wilsonInterval } from "../stats/wilson.js";

export { wilsonInterval };

/** What a test needs from its trials: at least N passes, or a minimum pass rate. */
export interface TrialRequirement {
  /** Passing trials needed (default: every trial). */
  readonly atLeast?: number;
  /** The smallest pass rate accepted, from 0 to 1. */
  readonly minRate?: number;
  /**
   * Sequential trials: stop as soon as the outcome is decided at this confidence (e.g.
   * 0.95), instead of running every trial. Decided means the rest cannot change it, or the
   * exact interval of the pass rate lies wholly above or below `minRate` (each look spends
   * 1/maxTrials of the error allowed, so early stops are wrong at most 1 - confidence of
   * the time). See docs/regressions.md.
   */
  readonly confidence?: number;
  /** The cap of sequential trials (default: the agent's trials, or the number given). */
  readonly maxTrials?: number;
  /**
   * The smallest mean judge score accepted, above 0 and at most 1 (e.g. 0.7), besides the
   * pass requirement. A trial's score is the mean of the scores its `toPassJudge` verdicts
   * gave (`.not` ones left out); a trial that got no verdict (it failed before its judge, or
   * the judge gave none) scores 0, so a missing judgement never lifts the mean.
   */
  readonly minMeanScore?: number;
}

/** Why sequential trials stopped (`confidence` given), with the sentence a report prints. */
export interface TrialsStopped {
  readonly reason: TrialsStop;
  /** e.g. `stopped after 11 of at most 30 trials: the pass rate is above 0.5 (...)`. */
  readonly text: string;
  readonly maxTrials: number;
}

/** One trial's verdict. */
export interface TrialVerdict {
  /** 1-based. */
  readonly trial: number;
  readonly passed: boolean;
  /** The first lines of the failure, when it failed. */
  readonly error: string | null;
  readonly durationMs: number;
  /** The mean score of the trial's judge verdicts (`.not` ones left out), or null without one. */
  readonly score: number | null;
  /** How many judge verdicts that score is the mean of. */
  readonly judged: number;
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
  /**
   * The mean judge score over the trials run, a trial without a verdict counting 0; null
   * when no trial got a verdict.
   */
  readonly meanScore: number | null;
  /** The trials that got at least one judge verdict. */
  readonly scored: number;
  /** Sequential trials only (`confidence` given): why they stopped. Null otherwise. */
  readonly stopped?: TrialsStopped | null;
}

/** Not enough trials passed. The message lists every trial's verdict. */
export class TrialsFailed extends M3Error {
  override readonly code = "M3_TRIALS_FAILED";
  constructor(
    readonly summary: TrialsSummary,
    need: string,
  ) {
    super(
      `${summary.passed} of ${summary.trials} trials passed` +
        (summary.meanScore === null ? "" : `, mean judge score ${round(summary.meanScore)}`) +
        `; the test needs ${need}.\n` +
        (summary.stopped ? `Sequential trials ${summary.stopped.text}.\n` : "") +
        summary.verdicts
          .map(
            (verdict) =>
              `  trial ${verdict.trial}: ${verdict.passed ? "passed" : "FAILED"} (${verdict.durationMs} ms` +
              (verdict.score === null
                ? summary.meanScore === null
                  ? ")"
                  : ", no judge verdict)"
                : `, judge score ${round(verdict.score)})`) +
              (verdict.error
                ? `\n    ${verdict.error.split("\n").slice(0, 6).join("\n    ")}`
                : ""),
          )
          .join("\n"),
    );
  }
}

let running: number | null = null;
/** The judge scores of the trial being run (null outside trials). */
let scores: number[] | null = null;

/** The trial being run in this test file, for transcripts (null outside trials). */
export function currentTrial(): number | null {
  return running;
}

/**
 * Counts a judge's score in the trial being run, for {@link TrialRequirement.minMeanScore}
 * (`toPassJudge` calls it for each verdict it gets, `.not` ones excepted). Outside trials
 * it does nothing.
 */
export function countJudgeScore(score: number): void {
  scores?.push(score);
}

const round = (value: number): number => Math.round(value * 1000) / 1000;

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
  const scored = verdicts.filter((verdict) => verdict.score !== null);
  return {
    trials: n,
    passed: c,
    rate: n === 0 ? 0 : c / n,
    interval: wilsonInterval(c, n),
    passAtK: ks.map((k) => 1 - choose(n - c, k) / choose(n, k)),
    passHatK: ks.map((k) => choose(c, k) / choose(n, k)),
    verdicts,
    meanScore:
      scored.length === 0
        ? null
        : round(verdicts.reduce((sum, verdict) => sum + (verdict.score ?? 0), 0) / n),
    scored: scored.length,
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

function sequentialPlan(
  requirement: TrialRequirement,
  maxTrials: number,
  atLeast: number,
): SequentialPlan | null {
  const { confidence } = requirement;
  if (confidence === undefined) {
    if (requirement.maxTrials !== undefined) {
      throw new InvalidArgument(
        "trials(): maxTrials is the cap of sequential trials; give confidence too (e.g. { minRate: 0.8, confidence: 0.95, maxTrials: 30 }), or pass the number of trials instead.",
      );
    }
    return null;
  }
  if (typeof confidence !== "number" || !(confidence > 0 && confidence < 1)) {
    throw new InvalidArgument(
      `trials(): confidence must be a number between 0 and 1 (e.g. 0.95), got ${JSON.stringify(confidence)}.`,
    );
  }
  return {
    maxTrials,
    atLeast,
    confidence,
    ...(requirement.minRate !== undefined ? { minRate: requirement.minRate } : {}),
  };
}

/**
 * Runs `body` once per trial of `agent` (or `count` times), each on its own; any thrown
 * error (a failed `expect`, a timeout) fails that trial only. Resolves with the summary
 * when enough trials passed; otherwise throws {@link TrialsFailed} listing every trial.
 * The summary is recorded for the run's pass-rate table and report.
 *
 * With `confidence`, trials are sequential: they stop once the outcome is decided (see
 * {@link TrialRequirement.confidence}), at most `maxTrials` of them, and the summary's
 * `stopped` says how many ran and why.
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
  const planned = typeof agent === "number" ? agent : agent.trials;
  const cap = requirement.maxTrials;
  if (cap !== undefined && (!Number.isInteger(cap) || cap < 1 || cap > 1000)) {
    throw new InvalidArgument(
      `trials(): maxTrials must be a whole number from 1 to 1000, got ${JSON.stringify(cap)}.`,
    );
  }
  const count = cap ?? planned;
  if (!Number.isInteger(count) || count < 1) {
    throw new InvalidArgument(
      `trials(): the number of trials must be a positive whole number, got ${JSON.stringify(count)}.`,
    );
  }
  const need = needed(requirement, count);
  const plan = sequentialPlan(requirement, count, need.atLeast);
  const verdicts: TrialVerdict[] = [];
  let stopped: TrialsStopped | null = null;
  let decided: boolean | null = null;
  for (let trial = 1; trial <= count; trial++) {
    const started = Date.now();
    running = trial;
    const judged: number[] = [];
    scores = judged;
    const score = () => ({
      score:
        judged.length === 0
          ? null
          : round(judged.reduce((sum, value) => sum + value, 0) / judged.length),
      judged: judged.length,
    });
    try {
      await body(trial);
      verdicts.push({
        trial,
        passed: true,
        error: null,
        durationMs: Date.now() - started,
        ...score(),
      });
    } catch (error) {
      // A trial's error may quote a credential a server or model echoed: the summary, the
      // ledger and TrialsFailed's message carry only its name.
      const text = defaultRuntime().scrub(error instanceof Error ? error.message : String(error));
      verdicts.push({
        trial,
        passed: false,
        error: text,
        durationMs: Date.now() - started,
        ...score(),
      });
    } finally {
      running = null;
      scores = null;
    }
    if (plan) {
      const passes = verdicts.filter((verdict) => verdict.passed).length;
      const decision = decideTrials(passes, trial, plan);
      if (decision.stop) {
        stopped = {
          reason: decision.reason,
          text: describeStop(decision.reason, plan, trial),
          maxTrials: count,
        };
        decided = decision.passes;
        break;
      }
    }
  }
  const summary: TrialsSummary = plan ? { ...summarize(verdicts), stopped } : summarize(verdicts);
  const dir = runDir();
  if (dir) {
    appendRecord(
      dir,
      "trials",
      defaultRuntime().scrubValue({
        testPath: expect.getState().testPath ?? "",
        testName: expect.getState().currentTestName ?? "",
        agent:
          typeof agent === "number"
            ? null
            : { harness: agent.harness, model: agent.model, version: agent.version },
        // The stop travels in `need`, which reports and merged shards carry as it is.
        need:
          (stopped ? `${need.text} (${stopped.text})` : need.text) +
          (requirement.minMeanScore === undefined
            ? ""
            : `, a mean judge score of at least ${requirement.minMeanScore}`),
        ...summary,
      }),
    );
  }
  const minScore = requirement.minMeanScore;
  const scoreMet = minScore === undefined || (summary.meanScore ?? 0) >= minScore;
  const passes = (decided ?? summary.passed >= need.atLeast) && scoreMet;
  if (!passes) {
    throw new TrialsFailed(
      summary,
      minScore === undefined
        ? need.text
        : `${need.text} and a mean judge score of at least ${minScore}` +
            (summary.meanScore === null ? " (no trial got a judge verdict)" : ""),
    );
  }
  return summary;
}
