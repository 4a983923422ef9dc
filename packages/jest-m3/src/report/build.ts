/**
 * Builds a run's {@link RunReport} from what Jest reported (tests, verdicts, failure
 * messages) and what the workers recorded (the sessions of each test).
 */
import { createHash } from "node:crypto";
import { relative, sep } from "node:path";
import type { TranscriptRecord } from "../shared/transcript.js";
import type {
  ReportSession,
  ReportTest,
  RunReport,
  SessionTrial,
  Trials,
  Verdict,
} from "./model.js";
import { SecretScrubber } from "@jest-m3/core/lean";
import { scrubText, type SecretValue } from "../shared/redact.js";
import { sameAgent, sessionAgent, testStats, type StatsAgent } from "./stats.js";
import type { VerdictRecord } from "./verdicts.js";

/** One test as Jest's reporters receive it (the fields the report reads). */
export interface JestAssertion {
  readonly fullName: string;
  readonly title: string;
  readonly status: string;
  readonly duration?: number | null;
  readonly failureMessages?: readonly string[];
}

/** One test file as Jest's reporters receive it. */
export interface JestFileResult {
  readonly testFilePath: string;
  readonly testResults: readonly JestAssertion[];
  /** Set when the file itself failed to run (a syntax error, a throwing hook). */
  readonly testExecError?: { readonly message?: string } | null;
  readonly failureMessage?: string | null;
}

/** What run.json holds (written by global setup). */
export interface RunFile {
  readonly runId?: string;
  readonly provider?: string | null;
  readonly readiness?: Record<
    string,
    | {
        readonly readiness?: {
          readonly ready?: boolean;
          readonly harness?: { readonly version?: string | null };
        };
      }
    | { readonly error?: string }
  >;
}

/** Everything a report is made of. */
export interface ReportInput {
  readonly rootDir: string;
  readonly run: RunFile | null;
  readonly files: readonly JestFileResult[];
  readonly sessions: readonly TranscriptRecord[];
  readonly success: boolean;
  readonly startedAt: number | null;
  /** When the run finished (epoch ms); now by default. */
  readonly finishedAt?: number;
  readonly secrets: readonly SecretValue[];
  /** The trials ledger of the run (see `trials()`), when tests ran trials. */
  readonly trials?: ReadonlyArray<{
    readonly testPath: string;
    readonly testName: string;
    readonly agent?: StatsAgent | null;
    readonly trials: number;
    readonly passed: number;
    readonly interval: readonly [number, number];
    readonly need: string;
    /** The trials (1-based) that failed; a blob carries these, not the ledger's verdicts. */
    readonly failedTrials?: readonly number[];
    /** The ledger's own per-trial verdicts (read for {@link failedTrialsOf}). */
    readonly verdicts?: ReadonlyArray<{ readonly trial: number; readonly passed: boolean }>;
  }>;
  /** The verdicts ledger of the run (see `toPassJudge`), when tests asked a judge. */
  readonly verdicts?: readonly VerdictRecord[];
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

/** Text without ANSI colour codes. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, "");
}

/**
 * What the reporter puts between a failure message and the agent transcript it appends (for
 * JUnit and other reporters); the HTML report shows the transcript its own way.
 */
export const TRANSCRIPT_MARKER = "\n\nWhat the agent did:\n";

const withoutTranscript = (message: string): string => {
  const at = message.indexOf(TRANSCRIPT_MARKER);
  return at < 0 ? message : message.slice(0, at);
};

/** The stable id of a test: a short hash of its file (relative) and full name. */
export function testId(file: string, fullName: string): string {
  return createHash("sha1").update(`${file}\u0000${fullName}`).digest("hex").slice(0, 12);
}

function verdictOf(status: string): Verdict {
  if (status === "passed" || status === "failed" || status === "todo") return status;
  return "skipped";
}

function harnessLines(run: RunFile | null): RunReport["harnesses"] {
  return Object.entries(run?.readiness ?? {}).map(([name, entry]) => {
    if ("error" in entry && entry.error) return { name, status: `error: ${entry.error}` };
    const readiness = "readiness" in entry ? entry.readiness : undefined;
    const version = readiness?.harness?.version ?? "unknown version";
    return { name, status: `${version}: ${readiness?.ready ? "ready" : "NOT ready"}` };
  });
}

/** A test's trials (summed over the `trials()` calls it made), when it ran any. */
function trialsOf(input: ReportInput, testPath: string, fullName: string): { trials?: Trials } {
  const mine = (input.trials ?? []).filter(
    (record) => record.testPath === testPath && record.testName === fullName,
  );
  if (mine.length === 0) return {};
  const passed = mine.reduce((sum, record) => sum + record.passed, 0);
  const total = mine.reduce((sum, record) => sum + record.trials, 0);
  const only = mine.length === 1 ? mine[0] : undefined;
  return {
    trials: {
      passed,
      total,
      ...(only ? { interval: only.interval, need: only.need } : {}),
    },
  };
}

type TrialsRecord = NonNullable<ReportInput["trials"]>[number];

/** The trials of a trials record that failed: as the blob says, else from its verdicts. */
export function failedTrialsOf(record: TrialsRecord): readonly number[] | null {
  if (record.failedTrials) return record.failedTrials;
  if (record.verdicts) {
    return record.verdicts.filter((verdict) => !verdict.passed).map((verdict) => verdict.trial);
  }
  return null;
}

/**
 * Which trial of its test a session ran in (`trial k of n`) and whether that trial passed,
 * from the test's trials records (`records`: the test's own): the record of the session's
 * agent, or the only one when it names none. Null for a session outside trials.
 *
 * @example
 * ```ts
 * const label = sessionTrial(session, records); // { trial: 2, of: 5, passed: false }
 * ```
 */
export function sessionTrial(
  session: TranscriptRecord,
  records: readonly TrialsRecord[],
): SessionTrial | null {
  const trial = session.trial;
  if (trial === null || trial === undefined) return null;
  const agent = sessionAgent(session);
  const mine = records.filter((record) =>
    record.agent ? sameAgent(record.agent, agent) : records.length === 1,
  );
  const record = mine.find((candidate) => candidate.trials >= trial) ?? mine[0];
  if (!record) return null;
  const failed = failedTrialsOf(record);
  return { trial, of: record.trials, passed: failed === null ? null : !failed.includes(trial) };
}

/** The sessions of a test, each with its trial when it ran in one. */
function withTrials(
  input: ReportInput,
  testPath: string,
  fullName: string,
  sessions: readonly TranscriptRecord[],
): ReportSession[] {
  const records = (input.trials ?? []).filter(
    (record) => record.testPath === testPath && record.testName === fullName,
  );
  return sessions.map((session) => {
    const trialOf = records.length > 0 ? sessionTrial(session, records) : null;
    return trialOf ? { ...session, trialOf } : session;
  });
}

/** A test's statistics per agent, when it ran sessions or trials (skipped tests: none). */
function statsOf(
  input: ReportInput,
  testPath: string,
  assertion: JestAssertion,
  sessions: readonly TranscriptRecord[],
): { stats?: ReportTest["stats"] } {
  if (assertion.status !== "passed" && assertion.status !== "failed") return {};
  const trials = (input.trials ?? []).filter(
    (record) => record.testPath === testPath && record.testName === assertion.fullName,
  );
  if (sessions.length === 0 && trials.length === 0) return {};
  const verdicts = (input.verdicts ?? []).filter(
    (record) => record.testPath === testPath && record.testName === assertion.fullName,
  );
  return { stats: testStats(sessions, trials, assertion.status === "passed", verdicts) };
}

/** A test's judge verdicts, in the order they were given, when it asked a judge. */
function verdictsOf(
  input: ReportInput,
  testPath: string,
  fullName: string,
): { verdicts?: ReportTest["verdicts"] } {
  const mine = (input.verdicts ?? [])
    .filter((record) => record.testPath === testPath && record.testName === fullName)
    .map(({ testPath: _path, testName: _name, ...verdict }) => verdict)
    .sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
  return mine.length === 0 ? {} : { verdicts: mine };
}

/**
 * `input` with its secrets scrubbed from every session whole and from the test names (of
 * Jest's results and of the trials, alike, so they still pair): a worker scrubbed what it
 * knew, by the fields it scrubs, and a merge's blobs come from other machines.
 */
function scrubbedInput(input: ReportInput): ReportInput {
  const scrubName = (name: string): string => scrubText(name, input.secrets);
  return {
    ...input,
    sessions: new SecretScrubber(input.secrets).scrubValue(input.sessions),
    files: input.files.map((file) => ({
      ...file,
      testResults: file.testResults.map((entry) => ({
        ...entry,
        fullName: scrubName(entry.fullName),
        title: scrubName(entry.title),
      })),
    })),
    ...(input.verdicts
      ? {
          verdicts: new SecretScrubber(input.secrets)
            .scrubValue(input.verdicts)
            .map((record) => ({ ...record, testName: scrubName(record.testName) })),
        }
      : {}),
    ...(input.trials
      ? {
          trials: input.trials.map((record) => ({
            ...record,
            testName: scrubName(record.testName),
          })),
        }
      : {}),
  };
}

/** The report of a run. */
export function buildRunReport(raw: ReportInput): RunReport {
  const input = scrubbedInput(raw);
  // Stack frames relative to the project, as the file names in the report are.
  const root = input.rootDir.endsWith(sep) ? input.rootDir : `${input.rootDir}${sep}`;
  const scrub = (text: string): string =>
    scrubText(stripAnsi(text).split(root).join(""), input.secrets);
  const tests: ReportTest[] = [];
  const used = new Set<string>();
  const uniqueId = (file: string, name: string): string => {
    const base = testId(file, name);
    let id = base;
    for (let n = 2; used.has(id); n += 1) id = `${base}-${n}`;
    used.add(id);
    return id;
  };
  const byFile = new Map<string, TranscriptRecord[]>();
  for (const session of input.sessions) {
    const list = byFile.get(session.testPath);
    if (list) list.push(session);
    else byFile.set(session.testPath, [session]);
  }
  for (const result of input.files) {
    const file = relative(input.rootDir, result.testFilePath) || result.testFilePath;
    const sessions = byFile.get(result.testFilePath) ?? [];
    const claimed = new Set<TranscriptRecord>();
    for (const assertion of result.testResults) {
      const ofTest = sessions.filter((session) => session.testName === assertion.fullName);
      ofTest.forEach((session) => claimed.add(session));
      const mine = ofTest.filter((session) => session.kind !== "direct");
      const direct = ofTest.filter((session) => session.kind === "direct");
      tests.push({
        id: uniqueId(file, assertion.fullName),
        file,
        title: assertion.title,
        fullName: assertion.fullName,
        verdict: verdictOf(assertion.status),
        durationMs: assertion.duration ?? null,
        failureMessages: (assertion.failureMessages ?? []).map((message) =>
          scrub(withoutTranscript(message)),
        ),
        sessions: withTrials(input, result.testFilePath, assertion.fullName, mine),
        ...trialsOf(input, result.testFilePath, assertion.fullName),
        ...statsOf(input, result.testFilePath, assertion, mine),
        ...verdictsOf(input, result.testFilePath, assertion.fullName),
        ...(direct.length > 0 ? { direct } : {}),
      });
    }
    const suiteFailed = Boolean(result.testExecError) || result.testResults.length === 0;
    const orphans = sessions.filter((session) => !claimed.has(session));
    if (orphans.length > 0 || (suiteFailed && result.failureMessage)) {
      // Sessions of hooks (beforeAll, ...), and files that failed to run at all.
      const name = `(${file}: outside any test)`;
      tests.push({
        id: uniqueId(file, name),
        file,
        title: name,
        fullName: name,
        verdict: suiteFailed && result.failureMessage ? "failed" : "passed",
        durationMs: null,
        failureMessages: result.failureMessage && suiteFailed ? [scrub(result.failureMessage)] : [],
        sessions: orphans.filter((session) => session.kind !== "direct"),
        ...(orphans.some((session) => session.kind === "direct")
          ? { direct: orphans.filter((session) => session.kind === "direct") }
          : {}),
      });
    }
  }
  const count = (verdict: Verdict): number =>
    tests.filter((test) => test.verdict === verdict).length;
  const sessions = tests.flatMap((test) => test.sessions);
  return {
    schema: 1,
    runId: input.run?.runId ?? null,
    provider: input.run?.provider ?? null,
    harnesses: harnessLines(input.run),
    startedAt: input.startedAt === null ? null : new Date(input.startedAt).toISOString(),
    finishedAt: new Date(input.finishedAt ?? Date.now()).toISOString(),
    success: input.success,
    totals: {
      tests: tests.length,
      passed: count("passed"),
      failed: count("failed"),
      skipped: count("skipped") + count("todo"),
      sessions: sessions.length,
      calls: sessions.reduce(
        (sum, session) =>
          sum + session.turns.reduce((inTurns, turn) => inTurns + turn.toolCalls.length, 0),
        0,
      ),
    },
    tests,
  };
}
