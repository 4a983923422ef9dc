/**
 * The judge's two errors: a judge that was asked wrongly (bad input, before any request),
 * and a judge that did not give a verdict (an HTTP error, a hang, a reply without the
 * `verdict` call). Neither is ever a pass.
 */
import { M3Error } from "../errors.js";
import type { JudgeEvidence } from "./evidence.js";

/** A judge option, selection or criteria is wrong. The message names the field and the fix. */
export class InvalidJudge extends M3Error {
  /** The field at fault (`judge.provider.wireApi`, `criteria`, `threshold`). */
  readonly field: string;
  constructor(field: string, problem: string) {
    super(`Invalid judge: ${field === "" ? "the judge" : `"${field}"`} ${problem}`, {
      code: "M3_INVALID_JUDGE",
    });
    this.field = field;
  }
}

/**
 * Why a judge gave no verdict: `http` (an error status), `network` (no connection),
 * `timeout` (no answer in time), `no_verdict` (an answer without the `verdict` call),
 * `bad_verdict` (a `verdict` call whose arguments are not `{ pass, score, reasoning }`),
 * `bad_response` (an answer that is not the dialect's shape).
 */
export type JudgeFailure =
  "http" | "network" | "timeout" | "no_verdict" | "bad_verdict" | "bad_response";

/** The judge was asked and gave no usable verdict. The assertion fails with this. */
export class JudgeFailed extends M3Error {
  readonly reason: JudgeFailure;
  /** The HTTP status, when the judge answered one. */
  readonly status: number | null;
  /** What the judge was shown. */
  readonly evidence: JudgeEvidence;
  constructor(
    reason: JudgeFailure,
    message: string,
    evidence: JudgeEvidence,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, {
      code: "M3_JUDGE_FAILED",
      retryable: reason === "http" || reason === "network" || reason === "timeout",
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.reason = reason;
    this.status = options.status ?? null;
    this.evidence = evidence;
  }
}
