/**
 * Asking a judge: the prompt built from the criteria and the evidence, one request with
 * plain `fetch` in the judge's dialect, the forced `verdict` call read back and checked,
 * and the decision (the judge's `pass`, and the score against a threshold). A judge that
 * errors, hangs or answers without the call throws {@link JudgeFailed}: never a pass.
 */
import { recordTraceVerdict } from "../evidence/trace-verdicts.js";
import { defaultRuntime } from "../runtime/runtime.js";
import { describeValue } from "../validation/check-input.js";
import { InvalidJudge, JudgeFailed } from "./errors.js";
import {
  isJudgeSubject,
  isSessionResult,
  judgeEvidence,
  type JudgeEvidence,
  type JudgeSubject,
} from "./evidence.js";
import type { ResolvedJudge } from "./judge-spec.js";
import { judgePrompt, VERDICT_TOOL } from "./prompt.js";
import { recordVerdict, type Verdict } from "./verdicts.js";
import { credentialHeaders, judgeRequest, readJudgeAnswer, sseData } from "./wire.js";

/** What {@link askJudge} takes besides the subject and the criteria. */
export interface AskJudgeOptions {
  /** The judge, resolved (see `resolveJudge`). */
  readonly judge: ResolvedJudge;
  /** The minimum score for a pass (0..1); without one, the judge's `pass` decides alone. */
  readonly threshold?: number;
  /** Where the judge's `credentialEnv` is read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Cancels the request. */
  readonly signal?: AbortSignal;
}

/**
 * Checks what a judge is asked: the subject, non-empty criteria, a threshold in 0..1.
 *
 * @throws {@link InvalidJudge} naming what is wrong.
 */
export function checkJudgeAsk(subject: unknown, criteria: unknown, threshold?: unknown): void {
  if (!isJudgeSubject(subject)) {
    throw new InvalidJudge(
      "subject",
      `must be a TurnResult (from send()) or an ExecutionResult (session.result), got ${describeValue(subject)}.`,
    );
  }
  if (typeof criteria !== "string" || criteria.trim() === "") {
    throw new InvalidJudge(
      "criteria",
      `must be a non-empty text saying what the reply or the session must do, got ${describeValue(criteria)}.`,
    );
  }
  if (
    threshold !== undefined &&
    (typeof threshold !== "number" || !(threshold >= 0 && threshold <= 1))
  ) {
    throw new InvalidJudge(
      "threshold",
      `must be a minimum score from 0 to 1 (e.g. 0.8), got ${describeValue(threshold)}.`,
    );
  }
}

/**
 * Asks a judge whether `subject` meets `criteria`, and records the verdict on the subject
 * (see `verdictsOf`).
 *
 * @example
 * ```ts
 * const judge = resolveJudge({ provider: model.providerFor("chat-completions"), model: "judge" });
 * const verdict = await askJudge(turn, "the reply states the quoted amount", { judge, threshold: 0.8 });
 * if (!verdict.passed) console.log(verdict.reasoning);
 * ```
 * @throws {@link InvalidJudge} for bad input (nothing is sent), {@link JudgeFailed} when the
 * judge gives no usable verdict.
 */
export async function askJudge(
  subject: JudgeSubject,
  criteria: string,
  options: AskJudgeOptions,
): Promise<Verdict> {
  checkJudgeAsk(subject, criteria, options.threshold);
  const { judge } = options;
  const runtime = defaultRuntime();
  const evidence = scrubbed(judgeEvidence(subject), runtime.scrub.bind(runtime));
  const prompt = judgePrompt(criteria, evidence);
  const request = judgeRequest(judge.provider.wireApi, judge.provider.baseUrl, judge.model, prompt);
  const headers: Record<string, string> = { ...request.headers };
  let key: string | undefined;
  if (judge.credentialEnv !== undefined) {
    key = (options.env ?? process.env)[judge.credentialEnv];
    if (key === undefined || key === "") {
      throw new InvalidJudge(
        "judge.credentialEnv",
        `names ${judge.credentialEnv}, which is not set: set it to the judge provider's API key.`,
      );
    }
    runtime.registerSecret(judge.credentialEnv, key);
    Object.assign(headers, credentialHeaders(judge.provider.wireApi, key));
  }
  const hide = (text: string) => {
    const out = runtime.scrub(text);
    return key === undefined || key === ""
      ? out
      : out.split(key).join(`[redacted: ${judge.credentialEnv}]`);
  };
  const where = `the judge ${judge.provider.name} (${judge.provider.wireApi}, model ${judge.model}) at ${request.url}`;
  const signals = [AbortSignal.timeout(judge.timeoutMs)];
  if (options.signal) signals.push(options.signal);
  const signal = AbortSignal.any(signals);
  const started = performance.now();
  let status: number;
  let text: string;
  let contentType: string;
  try {
    const response = await fetch(request.url, {
      method: "POST",
      headers,
      body: JSON.stringify(request.body),
      signal,
    });
    status = response.status;
    contentType = response.headers.get("content-type") ?? "";
    text = await response.text();
  } catch (error) {
    const timedOut = signal.aborted && !options.signal?.aborted;
    if (timedOut) {
      throw new JudgeFailed(
        "timeout",
        `${where} gave no answer within ${judge.timeoutMs} ms; the assertion cannot pass without a verdict. Raise the judge's timeoutMs, or check the endpoint.`,
        evidence,
        { cause: error },
      );
    }
    throw new JudgeFailed(
      "network",
      `${where} could not be reached: ${hide(error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error))}.`,
      evidence,
      { cause: error },
    );
  }
  const latencyMs = Math.round(performance.now() - started);
  if (status < 200 || status >= 300) {
    throw new JudgeFailed(
      "http",
      `${where} answered HTTP ${status}: ${hide(preview(text))}`,
      evidence,
      { status },
    );
  }
  let answer;
  try {
    const body: unknown = contentType.includes("text/event-stream")
      ? sseData(text)
      : JSON.parse(text);
    answer = readJudgeAnswer(judge.provider.wireApi, body);
  } catch (error) {
    throw new JudgeFailed(
      "bad_response",
      `${where} answered something that is not a ${judge.provider.wireApi} answer (${error instanceof Error ? error.message : String(error)}): ${hide(preview(text))}`,
      evidence,
      { status, cause: error },
    );
  }
  if (answer.verdict === null) {
    const said =
      answer.text.trim() === ""
        ? "nothing"
        : `text instead: ${JSON.stringify(hide(preview(answer.text)))}`;
    const others =
      answer.otherCalls.length > 0 ? ` It called ${answer.otherCalls.join(", ")}.` : "";
    throw new JudgeFailed(
      "no_verdict",
      `${where} did not call the ${VERDICT_TOOL} tool; it answered ${said}.${others} A reply without the ${VERDICT_TOOL} call is a judge error, not a pass.`,
      evidence,
      { status },
    );
  }
  const args = answer.verdict;
  const problem = verdictProblem(args);
  if (problem !== undefined) {
    throw new JudgeFailed(
      "bad_verdict",
      `${where} called ${VERDICT_TOOL} with ${hide(preview(JSON.stringify(args) ?? String(args)))}: ${problem}`,
      evidence,
      { status },
    );
  }
  const { pass, score, reasoning } = args as { pass: boolean; score: number; reasoning: string };
  const threshold = options.threshold ?? null;
  const verdict: Verdict = {
    criteria,
    passed: pass && (threshold === null || score >= threshold),
    pass,
    score,
    reasoning: hide(reasoning),
    threshold,
    judge: {
      provider: judge.provider.name,
      baseUrl: judge.provider.baseUrl,
      wireApi: judge.provider.wireApi,
      model: judge.model,
      credentialEnv: judge.credentialEnv ?? null,
    },
    subject: {
      executionId: evidence.executionId,
      turn: evidence.scope === "turn" ? (evidence.turns[0]?.number ?? null) : null,
    },
    evidence,
    prompt,
    latencyMs,
    usage: answer.usage,
    at: Date.now(),
  };
  recordVerdict(subject, verdict);
  if (verdict.subject.executionId !== null) {
    // The session's trace keeps it beside the turn it judged, every text scrubbed.
    recordTraceVerdict(verdict.subject.executionId, {
      turnId: isSessionResult(subject) ? null : subject.snapshot.turnId,
      turn: verdict.subject.turn,
      criteria: hide(criteria),
      judge: { ...verdict.judge, baseUrl: hide(verdict.judge.baseUrl) },
      pass,
      score,
      passed: verdict.passed,
      threshold,
      reasoning: verdict.reasoning,
      latencyMs,
      usage: answer.usage,
      at: verdict.at,
    });
  }
  return verdict;
}

function verdictProblem(args: unknown): string | undefined {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return "its arguments must be an object { pass, score, reasoning }.";
  }
  const { pass, score, reasoning } = args as Record<string, unknown>;
  if (typeof pass !== "boolean") return `"pass" must be a boolean, got ${describeValue(pass)}.`;
  if (typeof score !== "number" || !(score >= 0 && score <= 1)) {
    return `"score" must be a number from 0 to 1, got ${describeValue(score)}.`;
  }
  if (typeof reasoning !== "string") {
    return `"reasoning" must be a string, got ${describeValue(reasoning)}.`;
  }
  return undefined;
}

function scrubbed(evidence: JudgeEvidence, scrub: (text: string) => string): JudgeEvidence {
  return {
    ...evidence,
    turns: evidence.turns.map((turn) => ({
      number: turn.number,
      prompt: scrub(turn.prompt),
      reply: turn.reply === null ? null : scrub(turn.reply),
      toolCalls: turn.toolCalls.map((call) => ({
        ...call,
        arguments: scrub(call.arguments),
        result: scrub(call.result),
      })),
    })),
  };
}

function preview(text: string, max = 500): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
