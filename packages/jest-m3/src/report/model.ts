/**
 * The data of a run report: what the HTML report embeds and renders. Plain JSON, already
 * redacted, built once per run by the reporter.
 */
import type { SessionTrial, TranscriptRecord } from "../shared/transcript.js";

export type { SessionTrial };
import type { AgentStats } from "./stats.js";
import type { VerdictRecord } from "./verdicts.js";
import type { MergedShards, RunSelection } from "../shared/run-selection.js";

/**
 * A judge's verdict on a test (`toPassJudge`), or its failure (`error`): on the session and
 * turn it judged (`subject`), else on the test.
 */
export type ReportVerdict = Omit<VerdictRecord, "testPath" | "testName">;

/** Where a test ended. */
export type Verdict = "passed" | "failed" | "skipped" | "todo";

/** How many trials of a test passed, when the test ran trials. */
export interface Trials {
  readonly passed: number;
  readonly total: number;
  /** The Wilson 95% interval of the pass rate. */
  readonly interval?: readonly [number, number];
  /** What the test needed, e.g. `at least 4 of 5`. */
  readonly need?: string;
}

/** A session as the report shows it: its transcript, and its trial when it ran in one. */
export type ReportSession = TranscriptRecord & { readonly trialOf?: SessionTrial };

/** One test of the run, with every agent session it ran. */
export interface ReportTest {
  /** Stable across runs for the same file and name: the URL hash of a deep link (`#test=<id>`). */
  readonly id: string;
  /** The test file, relative to the Jest root folder. */
  readonly file: string;
  readonly title: string;
  /** Describe blocks and title, joined by spaces, as Jest names it. */
  readonly fullName: string;
  readonly verdict: Verdict;
  readonly durationMs: number | null;
  /** Why it failed: the assertion messages, ANSI colours removed. */
  readonly failureMessages: readonly string[];
  readonly sessions: readonly ReportSession[];
  readonly trials?: Trials;
  /**
   * Per agent the test ran on: trials run and passed, pass rate and interval, turn latency
   * p50/p95 and tool-call counts (total and per session).
   */
  readonly stats?: readonly AgentStats[];
  /** Every judge verdict (and judge failure) the test's assertions got, in order. */
  readonly verdicts?: readonly ReportVerdict[];
  /**
   * The test's direct clients (`kit.direct()`, no agent): each one's tool calls and their
   * JSON-RPC messages, recorded as a session's are (`kind: "direct"`).
   */
  readonly direct?: readonly TranscriptRecord[];
}

/** The whole run. */
export interface RunReport {
  /** Version of this shape; bumped when a field changes meaning. */
  readonly schema: 1;
  readonly runId: string | null;
  /** The model provider line global setup printed. */
  readonly provider: string | null;
  /** Each configured harness's readiness line. */
  readonly harnesses: ReadonlyArray<{ readonly name: string; readonly status: string }>;
  readonly startedAt: string | null;
  readonly finishedAt: string;
  readonly success: boolean;
  readonly totals: {
    readonly tests: number;
    readonly passed: number;
    readonly failed: number;
    readonly skipped: number;
    readonly sessions: number;
    readonly calls: number;
  };
  readonly tests: readonly ReportTest[];
  /** What the run selected of the suite; null when not known (an older blob). */
  readonly selection?: RunSelection | null;
  /** A merged run's shards; `missing` not empty: the run is partial. Null when not merged. */
  readonly shards?: MergedShards | null;
}
