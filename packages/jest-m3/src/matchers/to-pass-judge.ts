import {
  askJudge,
  checkJudgeAsk,
  checkJudgeSelection,
  InvalidJudge,
  JudgeFailed,
  resolveJudge,
  type JudgeSelection,
  type Verdict,
} from "@jest-m3/core";
import { SecretScrubber } from "@jest-m3/core/lean";
import { defaultRuntime } from "@jest-m3/core/runner";
import { throwUsage } from "../format/messages.js";
import { defaultJudge } from "../shared/judge-config.js";
import { countJudgeScore, currentTrial } from "../matrix/trials.js";
import { secretValuesOf } from "../shared/redact.js";
import { appendRecord } from "../shared/run-ledger.js";
import { runDir } from "../shared/hand-off.js";
import { checkOptions, type M3MatcherContext, type MatcherResult } from "./context.js";

/** Options of `toPassJudge`. */
export interface PassJudgeOptions {
  /** The minimum score (0..1) for a pass, besides the judge's own `pass`. */
  readonly threshold?: number;
  /** The judge to ask instead of the configured one (m3.config.json `judge`, `M3_JUDGE`). */
  readonly judge?: JudgeSelection;
}

const NAME = "toPassJudge";
const OPTIONS = ["threshold", "judge"] as const;

/**
 * `await expect(turn).toPassJudge("the reply states the quoted amount", { threshold: 0.8 })`:
 * a judge model decides, through one forced `verdict` call, whether the turn (or a session's
 * whole conversation) meets the criteria. A judge that errors fails under `.not` too.
 */
export async function toPassJudge(
  this: M3MatcherContext,
  received: unknown,
  criteria: unknown,
  options: PassJudgeOptions = {},
): Promise<MatcherResult> {
  checkOptions(this, NAME, options, OPTIONS);
  let verdict: Verdict;
  try {
    checkJudgeAsk(received, criteria, options.threshold);
    const runtime = defaultRuntime();
    const selection =
      options.judge === undefined ? defaultJudge(process.env) : checkJudgeSelection(options.judge);
    const judge = resolveJudge(selection, {
      runProvider: (dialects) => runtime.providerFor(dialects),
    });
    verdict = await askJudge(received as Parameters<typeof askJudge>[0], criteria as string, {
      judge,
      ...(options.threshold === undefined ? {} : { threshold: options.threshold }),
    });
  } catch (error) {
    if (error instanceof InvalidJudge) {
      if (error.field === "subject") {
        throwUsage(
          this,
          NAME,
          `${this.utils.RECEIVED_COLOR("received")} value must be a TurnResult (from send()) or an ExecutionResult (session.result)`,
          { value: received },
        );
      }
      throwUsage(this, NAME, error.message);
    }
    if (error instanceof JudgeFailed) {
      record(this, {
        criteria,
        threshold: options.threshold ?? null,
        error: { reason: error.reason, status: error.status, message: error.message },
      });
      // Never a pass, under .not neither: there is no verdict to negate.
      throw new Error(
        `${this.utils.matcherHint(NAME, undefined, "criteria", { isNot: this.isNot })}\n\n` +
          `The judge gave no verdict (${error.reason}): ${error.message}\n\n` +
          `Criteria: ${this.utils.printExpected(criteria)}`,
      );
    }
    throw error;
  }
  const { evidence: _evidence, prompt: _prompt, ...kept } = verdict;
  record(this, kept);
  // In trials, the score counts toward a mean-score requirement; a .not verdict's low score
  // is what its test wants, so it does not.
  if (this.isNot !== true) countJudgeScore(verdict.score);
  return {
    pass: verdict.passed,
    message: () => verdictMessage(this, verdict),
  };
}

/**
 * A verdict (or a judge's failure) in the run's `verdicts` ledger, for the reporter and the
 * history: the test, the trial, and whether the assertion was negated. The evidence is not
 * copied: the session's own record holds it.
 */
function record(context: M3MatcherContext, entry: Record<string, unknown>): void {
  const dir = runDir();
  if (!dir) return;
  appendRecord(
    dir,
    "verdicts",
    // Every secret the runtime handed out and every credential-named variable's value, as
    // the executions ledger is scrubbed: a reasoning may quote a key a server echoed.
    new SecretScrubber(secretValuesOf()).scrubValue({
      testPath: context.testPath ?? "",
      testName: context.currentTestName ?? "",
      trial: currentTrial(),
      isNot: context.isNot === true,
      ...entry,
    }),
  );
}

function verdictMessage(context: M3MatcherContext, verdict: Verdict): string {
  const { utils } = context;
  const threshold = verdict.threshold === null ? "" : ` (threshold ${verdict.threshold})`;
  const expected = context.isNot ? "not to pass" : "to pass";
  return (
    `${utils.matcherHint(NAME, undefined, "criteria", { isNot: context.isNot })}\n\n` +
    `Expected the ${verdict.subject.turn === null ? "session" : `turn ${verdict.subject.turn}`} ${expected} the judge.\n` +
    `Criteria: ${utils.printExpected(verdict.criteria)}\n` +
    `Verdict:  ${utils.printReceived(verdict.pass ? "pass" : "fail")}, score ${utils.printReceived(verdict.score)}${threshold}\n` +
    `Reasoning: ${verdict.reasoning}\n` +
    `Judge: ${verdict.judge.model} at ${verdict.judge.provider} (${verdict.judge.wireApi}), ${verdict.latencyMs} ms\n\n` +
    `What the judge was shown:\n${indent(verdict.prompt.user)}`
  );
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}
