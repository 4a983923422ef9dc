import type { ExecutionResult } from "@jest-m3/core";
import { shortValue } from "./format/values.js";

/** A session, as kept for the reporter: small, redacted, JSON. */
export interface TranscriptRecord {
  readonly testPath: string;
  readonly testName: string;
  readonly executionId: string;
  readonly agent: string;
  readonly model: string;
  readonly sessionId: string | null;
  readonly outcome: string | null;
  readonly error: string | null;
  readonly gaps: readonly string[];
  readonly turns: ReadonlyArray<{
    readonly number: number;
    readonly outcome: string | null;
    readonly prompt: string;
    readonly reply: string | null;
    readonly error: string | null;
    readonly toolCalls: ReadonlyArray<{
      readonly server: string;
      readonly tool: string;
      readonly arguments: string;
      readonly status: string;
      readonly evidence: string;
    }>;
  }>;
  /** Calls outside any turn (startup, close). */
  readonly outsideTurns: number;
}

const clip = (text: string, max: number): string =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** Makes the record the reporter prints for a finished session. */
export function toTranscript(
  result: ExecutionResult,
  testPath: string,
  testName: string,
): TranscriptRecord {
  return {
    testPath,
    testName,
    executionId: result.snapshot.executionId,
    agent: result.snapshot.agent.name,
    model: result.snapshot.agent.model,
    sessionId: result.snapshot.sessionId,
    outcome: result.snapshot.outcome,
    error:
      result.error === null ? null : clip(`${result.error.code}: ${result.error.message}`, 2000),
    gaps: result.trace.gaps.map((gap) => `${gap.server}: ${gap.reason}`),
    turns: result.turns.map((turn) => ({
      number: turn.snapshot.number,
      outcome: turn.snapshot.outcome,
      prompt: clip(turn.prompt, 500),
      reply: turn.response === null ? null : clip(turn.response.text, 1000),
      error: turn.error === null ? null : clip(`${turn.error.code}: ${turn.error.message}`, 1000),
      toolCalls: turn.toolCalls.map((call) => ({
        server: call.server,
        tool: call.tool,
        arguments: shortValue(call.arguments, 200),
        status: call.status,
        evidence: call.evidence,
      })),
    })),
    outsideTurns: result.trace.toolCalls.filter((call) => call.turnId === null).length,
  };
}

/** The transcript as text, for a failed test's output. */
export function formatTranscript(record: TranscriptRecord): string {
  const lines = [
    `jest-m3 transcript · ${record.agent} · session ${record.sessionId ?? "(never opened)"} · outcome ${record.outcome}`,
  ];
  for (const turn of record.turns) {
    lines.push(`  turn ${turn.number} [${turn.outcome}]`);
    lines.push(`    prompt: ${turn.prompt.replace(/\n/g, "\n            ")}`);
    for (const call of turn.toolCalls) {
      lines.push(
        `    tool call: ${call.server}:${call.tool} ${call.arguments} → ${call.status} (${call.evidence} evidence)`,
      );
    }
    if (turn.toolCalls.length === 0) lines.push("    tool calls: none observed");
    lines.push(`    reply: ${turn.reply ?? "(none)"}`);
    if (turn.error) lines.push(`    error: ${turn.error.replace(/\n/g, "\n           ")}`);
  }
  if (record.error)
    lines.push(`  session error: ${record.error.replace(/\n/g, "\n                 ")}`);
  for (const gap of record.gaps) lines.push(`  evidence gap: ${gap}`);
  return lines.join("\n");
}
