/**
 * Judge verdicts as the report keeps them: the records `toPassJudge` appends to the run's
 * `verdicts` ledger (a verdict, or a judge's failure), joined to the sessions they judged
 * by `subject.executionId`.
 */

/** One record of the `verdicts` ledger: a verdict, or (with `error`) a judge that gave none. */
export interface VerdictRecord {
  readonly testPath: string;
  readonly testName: string;
  /** The trial (1-based) of `trials()` the assertion ran in, or null. */
  readonly trial: number | null;
  /** The assertion was `.not.toPassJudge`. */
  readonly isNot: boolean;
  readonly criteria: string;
  readonly threshold: number | null;
  /** Whether the assertion's verdict passes (the judge's `pass`, and the threshold). */
  readonly passed?: boolean;
  /** The judge's own `pass`. */
  readonly pass?: boolean;
  readonly score?: number;
  readonly reasoning?: string;
  readonly judge?: {
    readonly provider: string;
    readonly baseUrl: string;
    readonly wireApi: string;
    readonly model: string;
    readonly credentialEnv: string | null;
  };
  /** What was judged: the session, and the turn (null for the whole session). */
  readonly subject?: { readonly executionId: string | null; readonly turn: number | null };
  readonly latencyMs?: number;
  readonly usage?: {
    readonly inputTokens: number | null;
    readonly outputTokens: number | null;
  } | null;
  /** When the verdict came (epoch ms). */
  readonly at?: number;
  /** Why there is no verdict: the judge errored, timed out, or answered without the call. */
  readonly error?: {
    readonly reason: string;
    readonly status: number | null;
    readonly message: string;
  };
}

/** Longest reasoning and criteria the report keeps. */
const MAX_TEXT = 4000;

const clip = (text: string): string =>
  text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text;

/**
 * Only the fields the report reads, texts clipped: the ledger is written by a worker, and
 * what it holds beyond these (the evidence is never copied) is not carried.
 */
export function trimVerdict(record: VerdictRecord): VerdictRecord {
  return {
    testPath: record.testPath,
    testName: record.testName,
    trial: typeof record.trial === "number" ? record.trial : null,
    isNot: record.isNot === true,
    criteria: clip(String(record.criteria)),
    threshold: typeof record.threshold === "number" ? record.threshold : null,
    ...(record.error
      ? {
          error: {
            reason: String(record.error.reason),
            status: typeof record.error.status === "number" ? record.error.status : null,
            message: clip(String(record.error.message)),
          },
        }
      : {
          ...(record.passed === undefined ? {} : { passed: record.passed }),
          ...(record.pass === undefined ? {} : { pass: record.pass }),
          ...(record.score === undefined ? {} : { score: record.score }),
          ...(record.reasoning === undefined ? {} : { reasoning: clip(record.reasoning) }),
          ...(record.judge
            ? {
                judge: {
                  provider: record.judge.provider,
                  baseUrl: record.judge.baseUrl,
                  wireApi: record.judge.wireApi,
                  model: record.judge.model,
                  credentialEnv: record.judge.credentialEnv ?? null,
                },
              }
            : {}),
          ...(record.subject
            ? {
                subject: {
                  executionId: record.subject.executionId ?? null,
                  turn: record.subject.turn ?? null,
                },
              }
            : {}),
          ...(record.latencyMs === undefined ? {} : { latencyMs: record.latencyMs }),
          usage: record.usage
            ? {
                inputTokens: record.usage.inputTokens ?? null,
                outputTokens: record.usage.outputTokens ?? null,
              }
            : null,
          ...(record.at === undefined ? {} : { at: record.at }),
        }),
  };
}
