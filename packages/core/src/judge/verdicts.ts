/**
 * Verdicts kept with what they judged, so a runner's reporter and history can show them
 * beside the turn: `verdictsOf(turn)`, `verdictsOf(session.result)` (every verdict of the
 * session, its turns' included).
 */
import { isSessionResult, type JudgeEvidence, type JudgeSubject } from "./evidence.js";
import type { JudgeProvider } from "./judge-spec.js";
import type { JudgePrompt } from "./prompt.js";
import type { JudgeUsage } from "./wire.js";

/** A judge's verdict on a turn or a session: evidence, like a tool call. */
export interface Verdict {
  readonly criteria: string;
  /** Whether the assertion passes: the judge's `pass`, and `score ≥ threshold` when given. */
  readonly passed: boolean;
  /** The judge's own `pass`. */
  readonly pass: boolean;
  /** The judge's score, 0..1. */
  readonly score: number;
  readonly reasoning: string;
  /** The threshold the score was held to, or null. */
  readonly threshold: number | null;
  /** Which model judged (never a credential: `credentialEnv` is a name). */
  readonly judge: {
    readonly provider: string;
    readonly baseUrl: string;
    readonly wireApi: JudgeProvider["wireApi"];
    readonly model: string;
    readonly credentialEnv: string | null;
  };
  /** What was judged: the session's id, and the turn's number (null for a whole session). */
  readonly subject: { readonly executionId: string | null; readonly turn: number | null };
  /** What the judge was shown. */
  readonly evidence: JudgeEvidence;
  /** The texts sent. */
  readonly prompt: JudgePrompt;
  /** From request to answer, in ms. */
  readonly latencyMs: number;
  /** The judge's token usage, when its provider reported it. */
  readonly usage: JudgeUsage | null;
  /** When the verdict came (epoch ms). */
  readonly at: number;
}

const byExecution = new Map<string, Verdict[]>();
const byObject = new WeakMap<object, Verdict[]>();

/** @internal Keeps a verdict with its subject. */
export function recordVerdict(subject: JudgeSubject, verdict: Verdict): void {
  const own = byObject.get(subject) ?? [];
  own.push(verdict);
  byObject.set(subject, own);
  const id = verdict.subject.executionId;
  if (id !== null) {
    const list = byExecution.get(id) ?? [];
    list.push(verdict);
    byExecution.set(id, list);
  }
}

/**
 * The verdicts given on a turn, or on a session and each of its turns, oldest first.
 *
 * @example
 * ```ts
 * for (const verdict of verdictsOf(session.result)) console.log(verdict.score, verdict.reasoning);
 * ```
 */
export function verdictsOf(subject: JudgeSubject): readonly Verdict[] {
  if (isSessionResult(subject)) {
    return [...(byExecution.get(subject.snapshot.executionId) ?? byObject.get(subject) ?? [])];
  }
  const own = byObject.get(subject) ?? [];
  const turnId = subject.snapshot.turnId;
  const executionId = /^(.*)\/turn-\d+$/.exec(turnId)?.[1];
  const sameTurn = (byExecution.get(executionId ?? "") ?? []).filter(
    (verdict) => verdict.subject.turn === subject.snapshot.number,
  );
  return [...new Set([...own, ...sameTurn])];
}
