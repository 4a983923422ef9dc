import { createHash } from "node:crypto";
import type { DirectClientClosed } from "@jest-m3/core/runner";
import type {
  ExecutionResult,
  PriceTable,
  ModelRequest,
  TokenUsage,
  ToolCall,
  TraceMessage,
  Unavailable,
  WorkspaceResult,
} from "@jest-m3/core";
import { isUnavailable, SecretScrubber } from "@jest-m3/core/lean";
import { canonicalJson, toolCatalogs, toolErrorText } from "@jest-m3/core/lean";
import { shortValue } from "../format/values.js";
import { runPrices } from "./hand-off.js";
import { redactForReport, scrubText, secretValuesOf, type SecretValue } from "./redact.js";

/** A JSON-RPC message behind a tool call, as the report shows it (redacted, clipped). */
export interface TranscriptMessage {
  readonly direction: "to_server" | "from_server";
  readonly kind: string;
  /** Milliseconds after the call's request was observed. */
  readonly afterMs: number | null;
  /** The message as JSON (redacted; clipped to a few kilobytes). */
  readonly json: string;
  /** `policy` when the wire capture answered it itself (a denied tool). */
  readonly origin?: string;
}

/** One tool call of a turn, as kept for the reporter. */
export interface TranscriptCall {
  readonly server: string;
  readonly tool: string;
  /** One-line JSON of the arguments, redacted and shortened. */
  readonly arguments: string;
  readonly status: string;
  readonly evidence: string;
  /** The call's id within its session (`call-3`). */
  readonly id?: string;
  /** One-line JSON of the result, redacted and shortened; null when there was none. */
  readonly result?: string | null;
  /** The error text of a failed call (tool error, JSON-RPC error, missing response). */
  readonly error?: string | null;
  readonly latencyMs?: number | null;
  /** When the request was observed, in milliseconds after the turn began. */
  readonly offsetMs?: number | null;
  /** The JSON-RPC messages behind the call: the request and its response. */
  readonly messages?: readonly TranscriptMessage[];
}

/** The model provider that served a session: never a key (`envKey` is a variable name). */
export interface TranscriptProvider {
  readonly name: string;
  /** Where requests went (secrets scrubbed). */
  readonly baseUrl: string;
  /** The dialect it spoke (`responses`, `anthropic-messages`, `gemini`, `chat-completions`). */
  readonly dialect: string;
  readonly envKey?: string;
}

/** One tool of a server's catalog, as its `tools/list` answer gave it. */
export interface CatalogTool {
  readonly name: string;
  /** sha256 (first 16 hex digits) of the canonical JSON of its input and output schemas. */
  readonly schemaHash: string;
  readonly description?: string;
}

/** The tools a server listed during a session (every page of `tools/list`). */
export interface ServerCatalog {
  readonly server: string;
  readonly tools: readonly CatalogTool[];
}

/** Tokens of a turn, a session or one model request, as the provider tap counted them. */
export interface TranscriptUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  /** Null when the provider did not say. */
  readonly cachedInputTokens: number | null;
  readonly reasoningTokens: number | null;
  /** `provider` (read from the provider's answers) or `agent-reported`. */
  readonly source: string;
  /** How many model requests the numbers add up. */
  readonly requests: number;
}

/** One request the agent sent its model, as the provider tap saw it (sizes, never bodies). */
export interface TranscriptModelRequest {
  readonly id: string;
  readonly model: string | null;
  readonly dialect: string;
  readonly status: number | null;
  readonly latencyMs: number | null;
  readonly generation: boolean;
  readonly stream: boolean;
  /** Whether a successful answer ended as its dialect ends one. */
  readonly complete: boolean;
  readonly error: string | null;
  /** Bytes of the request body. */
  readonly requestBytes: number;
  /** Messages (input items) the conversation held. */
  readonly messages: number;
  /** Tools offered, and the bytes of their definitions together. */
  readonly tools: number;
  readonly toolBytes: number;
  /** Null when the provider reported none (see `usageNote`). */
  readonly usage: TranscriptUsage | null;
  readonly usageNote: string | null;
  /** The tool names the model asked to call in its answer. */
  readonly toolCalls: readonly string[];
}

/** A tool the model was offered, by the name it saw, and the bytes of its definition. */
export interface TranscriptOfferedTool {
  readonly name: string;
  readonly bytes: number;
}

/**
 * What the tool catalogs cost the agent's context (core's `catalogCostOf`): per server, its
 * tools in the first model request that offered them (a deferred tool once loaded), and the
 * agent's own tools of the first request that offered tools; bytes and tokens (bytes / 4).
 */
export interface TranscriptCatalogCost {
  readonly servers: ReadonlyArray<{
    readonly server: string;
    /** The request that first offered its tools, or null when none did. */
    readonly requestId: string | null;
    readonly tools: readonly TranscriptOfferedTool[];
    readonly bytes: number;
    readonly estimatedTokens: number;
  }>;
  readonly agentTools: readonly TranscriptOfferedTool[];
  readonly bytes: number;
  readonly estimatedTokens: number;
}

/** One changed path of a session's workspace (the diff cut short past a limit). */
export interface TranscriptFileChange {
  readonly path: string;
  readonly change: string;
  readonly from: string | null;
  readonly type: string;
  readonly binary: boolean;
  /** The unified diff, clipped; null when binary, too large or identical. */
  readonly diff: string | null;
  /** True when `diff` was cut short. */
  readonly clipped: boolean;
  readonly size: number | null;
  readonly note: string | null;
}

/** What a session's workspace became (see core's `WorkspaceResult`), for the reporter. */
export interface TranscriptWorkspace {
  readonly kind: string;
  readonly source: string;
  readonly ref: string | null;
  readonly commit: string | null;
  readonly kept: boolean;
  readonly changes: readonly TranscriptFileChange[];
  readonly artifacts: ReadonlyArray<{
    readonly path: string;
    readonly exists: boolean;
    readonly size: number | null;
    readonly binary: boolean;
  }>;
  readonly error: string | null;
}

/** A session, as kept for the reporter: small, redacted, JSON. */
export interface TranscriptRecord {
  /**
   * `direct` for a direct client's calls (`kit.direct()`, no agent: `agent` is `direct`,
   * `model` the server's name, the calls sit in one turn without prompt or reply); absent
   * for an agent session.
   */
  readonly kind?: "direct";
  readonly testPath: string;
  readonly testName: string;
  readonly executionId: string;
  readonly agent: string;
  readonly model: string;
  /** The harness's name (`codex`, `test`, ...). */
  readonly harness?: string;
  /** The harness's version as readiness found it. */
  readonly version?: string | null;
  readonly sessionId: string | null;
  /** The provider that served the session; null when the harness used its own default. */
  readonly provider?: TranscriptProvider | null;
  /** The tool catalog each server answered `tools/list` with, as seen on the wire. */
  readonly catalogs?: readonly ServerCatalog[];
  /** The trial (1-based) of `trials()` the session ran in, or null outside trials. */
  readonly trial?: number | null;
  readonly outcome: string | null;
  readonly error: string | null;
  /** The session's structured error code, when it has one. */
  readonly errorCode?: string | null;
  readonly durationMs?: number | null;
  readonly gaps: readonly string[];
  /** The tokens of the whole session (provider tap), or null when none were counted. */
  readonly usage?: TranscriptUsage | null;
  /** The tool catalog's cost in the first model request that offered tools. */
  readonly catalogCost?: TranscriptCatalogCost | null;
  /** Model requests of the session in all (turns, opening and closing). */
  readonly modelRequestCount?: number | null;
  /**
   * The session's cost from the run's price table (m3.config.json `prices`, core's
   * `modelCost`); null when it is unavailable, and then `costNote` says why (never 0).
   */
  readonly cost?: number | null;
  readonly costNote?: string | null;
  /** What the session changed in its workspace, when it had one. */
  readonly workspace?: TranscriptWorkspace | null;
  readonly turns: ReadonlyArray<{
    readonly number: number;
    readonly outcome: string | null;
    readonly prompt: string;
    readonly reply: string | null;
    readonly error: string | null;
    readonly durationMs?: number | null;
    readonly gaps?: readonly string[];
    readonly toolCalls: readonly TranscriptCall[];
    /** The turn's tokens (provider tap), or null when none were counted. */
    readonly usage?: TranscriptUsage | null;
    /** The turn's model requests, as the provider tap saw them. */
    readonly modelRequests?: readonly TranscriptModelRequest[];
  }>;
  /** Calls outside any turn (startup, close). */
  readonly outsideTurns: number;
}

/** Which trial of `trials()` a session ran in, and whether that trial passed. */
export interface SessionTrial {
  /** 1-based. */
  readonly trial: number;
  /** How many trials the test ran on this agent. */
  readonly of: number;
  /** Null when the trials ledger does not say (an older blob). */
  readonly passed: boolean | null;
}

/** `trial 2 of 5 (failed)`: how reports and transcripts label a session's trial. */
export function trialLabel(trial: SessionTrial): string {
  const verdict = trial.passed === null ? "" : trial.passed ? " (passed)" : " (failed)";
  return `trial ${trial.trial} of ${trial.of}${verdict}`;
}

const clip = (text: string, max: number): string =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/** Longest JSON kept for one JSON-RPC message. */
const MAX_MESSAGE = 4000;

const numberOrNull = (value: unknown): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : null;

/** The JSON-RPC messages of a trace by server, connection and JSON-RPC id. */
function messagesById(messages: readonly TraceMessage[]): Map<string, TraceMessage[]> {
  const byId = new Map<string, TraceMessage[]>();
  for (const message of messages) {
    const id = (message.message as { id?: unknown } | undefined)?.id;
    if (typeof id !== "string" && typeof id !== "number") continue;
    const key = `${message.server}\u0000${message.connection}\u0000${typeof id}:${id}`;
    const list = byId.get(key);
    if (list) list.push(message);
    else byId.set(key, [message]);
  }
  return byId;
}

function callMessages(
  call: ToolCall,
  byId: Map<string, TraceMessage[]>,
  secrets: readonly SecretValue[],
): TranscriptMessage[] {
  if (isUnavailable(call.jsonrpcId)) return [];
  const key = `${call.server}\u0000${call.connection}\u0000${typeof call.jsonrpcId}:${call.jsonrpcId}`;
  const candidates = byId.get(key) ?? [];
  // The tools/call request with this id, then the first answer after it.
  const start = isUnavailable(call.startedAt) ? null : call.startedAt;
  const request =
    candidates.find(
      (message) =>
        message.direction === "to_server" &&
        (message.message as { method?: unknown }).method === "tools/call" &&
        (start === null || Math.abs(message.at - start) < 1),
    ) ?? candidates.find((message) => message.direction === "to_server");
  if (!request) return [];
  const answer = candidates.find(
    (message) => message.direction === "from_server" && message.seq > request.seq,
  );
  return [request, ...(answer ? [answer] : [])].map((message) => ({
    direction: message.direction,
    kind: message.kind,
    afterMs: message.at - request.at,
    json: clip(JSON.stringify(redactForReport(message.message, secrets)) ?? "", MAX_MESSAGE),
    ...(message.origin ? { origin: message.origin } : {}),
  }));
}

function toTranscriptCall(
  call: ToolCall,
  turnStart: number | null,
  byId: Map<string, TraceMessage[]>,
  secrets: readonly SecretValue[],
): TranscriptCall {
  const startedAt = numberOrNull(call.startedAt);
  const error = toolErrorText(call);
  return {
    id: call.id,
    server: call.server,
    tool: call.tool,
    arguments: scrubText(shortValue(call.arguments, 200), secrets),
    status: call.status,
    evidence: call.evidence,
    result: isUnavailable(call.result) ? null : scrubText(shortValue(call.result, 400), secrets),
    error: error === null ? null : scrubText(clip(error, 1000), secrets),
    latencyMs: numberOrNull(call.latencyMs),
    offsetMs: startedAt !== null && turnStart !== null ? startedAt - turnStart : null,
    messages: callMessages(call, byId, secrets),
  };
}

/** The short hash a catalog tool's schemas are compared by. */
export function schemaHash(tool: { inputSchema?: unknown; outputSchema?: unknown }): string {
  return createHash("sha256")
    .update(canonicalJson({ input: tool.inputSchema ?? null, output: tool.outputSchema ?? null }))
    .digest("hex")
    .slice(0, 16);
}

/**
 * The tool catalogs of a session's servers, for the report and the run history: core's
 * `toolCatalogs` (every `tools/list` answer on the wire, pages merged, the last complete
 * listing), each tool reduced to its name, a hash of its schemas and its description.
 */
export function catalogsOf(messages: readonly TraceMessage[]): ServerCatalog[] {
  return [...toolCatalogs(messages).values()]
    .sort((a, b) => a.server.localeCompare(b.server))
    .map(({ server, tools }) => ({
      server,
      tools: tools
        .map((tool) => ({
          name: tool.name,
          schemaHash: schemaHash(tool),
          ...(typeof tool.description === "string"
            ? { description: clip(tool.description, 300) }
            : {}),
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    }));
}

/** Longest unified diff kept per changed file, and for all files of a session together. */
export const MAX_FILE_DIFF = 20_000;
const MAX_WORKSPACE_DIFF = 200_000;

/** A tap's usage as JSON the report keeps (null when unavailable). */
export function usageRecord(usage: TokenUsage | Unavailable | undefined): TranscriptUsage | null {
  if (usage === undefined || isUnavailable(usage)) return null;
  const number = (value: number | Unavailable): number | null =>
    isUnavailable(value) ? null : value;
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.totalTokens,
    cachedInputTokens: number(usage.cachedInputTokens),
    reasoningTokens: number(usage.reasoningTokens),
    source: usage.source,
    requests: usage.requests,
  };
}

function modelRequestRecord(request: ModelRequest): TranscriptModelRequest {
  return {
    id: request.id,
    model: request.model,
    dialect: request.dialect,
    status: request.status,
    latencyMs: request.latencyMs,
    generation: request.generation,
    stream: request.stream,
    complete: request.response.complete,
    error: request.error === null ? null : clip(request.error, 1000),
    requestBytes: request.request.bytes,
    messages: request.request.messages,
    tools: request.request.tools.length,
    toolBytes: request.request.toolBytes,
    usage: usageRecord(request.usage),
    usageNote: isUnavailable(request.usage) ? clip(request.usage.reason, 300) : null,
    toolCalls: request.toolCalls.map((call) => clip(call.name, 200)),
  };
}

/** The catalog cost of a session with model requests (core's `catalogCostOf`), else null. */
export function catalogCostRecord(result: ExecutionResult): TranscriptCatalogCost | null {
  if (!(result.modelRequests ?? []).some((request) => request.request.tools.length > 0)) {
    return null;
  }
  // Loaded here, in the worker that made the result (core is loaded there already): the
  // reporter reads this module without the whole of core.
  const { catalogCostOf } =
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require("@jest-m3/core") as typeof import("@jest-m3/core");
  const cost = catalogCostOf(result);
  const offered = (tool: { name: string; namespace: string | null; bytes: number }) => ({
    name: tool.namespace ? `${tool.namespace}.${tool.name}` : tool.name,
    bytes: tool.bytes,
  });
  return {
    servers: cost.servers.map((server) => ({
      server: server.server,
      requestId: server.requestId,
      tools: server.tools.map(offered),
      bytes: server.bytes,
      estimatedTokens: server.estimatedTokens,
    })),
    agentTools: cost.agentTools.map(offered),
    bytes: cost.bytes,
    estimatedTokens: cost.estimatedTokens,
  };
}

/**
 * A session's cost from `prices` (core's `modelCost` over its model requests): the number,
 * or null and the reason it is unavailable (no price table, a model without a price, a
 * request without usage).
 */
export function costRecord(
  result: ExecutionResult,
  prices: PriceTable | undefined,
): { cost: number | null; costNote: string | null } {
  if (!prices) {
    return { cost: null, costNote: "no price table (m3.config.json prices)" };
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { modelCost } = require("@jest-m3/core") as typeof import("@jest-m3/core");
  const cost = modelCost(result.modelRequests ?? [], prices);
  return isUnavailable(cost)
    ? { cost: null, costNote: clip(cost.reason, 300) }
    : { cost: cost.cost, costNote: null };
}

/** A workspace result as the report keeps it: every change, each diff clipped. */
export function workspaceRecord(
  workspace: WorkspaceResult | undefined,
): TranscriptWorkspace | null {
  if (!workspace) return null;
  let budget = MAX_WORKSPACE_DIFF;
  return {
    kind: workspace.kind,
    source: workspace.source,
    ref: workspace.ref,
    commit: workspace.commit,
    kept: workspace.kept,
    changes: workspace.changes.map((change) => {
      const limit = Math.max(0, Math.min(MAX_FILE_DIFF, budget));
      const diff = change.diff === null ? null : change.diff.slice(0, limit);
      budget -= diff?.length ?? 0;
      const clipped = change.diff !== null && diff !== null && diff.length < change.diff.length;
      return {
        path: change.path,
        change: change.change,
        from: change.from,
        type: change.type,
        binary: change.binary,
        diff: clipped
          ? `${diff}\n… (diff cut short: ${change.diff?.length} characters in all)`
          : diff,
        clipped,
        size: change.size,
        note: change.note,
      };
    }),
    artifacts: workspace.artifacts.map((artifact) => ({
      path: artifact.path,
      exists: artifact.exists,
      size: artifact.size,
      binary: artifact.binary,
    })),
    error: workspace.error === null ? null : clip(workspace.error, 4000),
  };
}

/** Makes the record the reporter prints for a finished session. */
export function toTranscript(
  result: ExecutionResult,
  testPath: string,
  testName: string,
  secrets: readonly SecretValue[] = secretValuesOf(),
  prices: PriceTable | undefined = runPrices(),
): TranscriptRecord {
  const scrub = (text: string): string => scrubText(text, secrets);
  const byId = messagesById(result.trace.messages);
  const { snapshot } = result;
  const record: TranscriptRecord = {
    testPath,
    testName,
    executionId: snapshot.executionId,
    agent: snapshot.agent.name,
    model: snapshot.agent.model,
    harness: snapshot.agent.harness,
    version: snapshot.agent.version,
    sessionId: snapshot.sessionId,
    provider: snapshot.provider
      ? {
          name: snapshot.provider.name,
          baseUrl: scrub(snapshot.provider.baseUrl),
          dialect: snapshot.provider.wireApi,
          ...(snapshot.provider.envKey ? { envKey: snapshot.provider.envKey } : {}),
        }
      : null,
    catalogs: catalogsOf(result.trace.messages),
    outcome: snapshot.outcome,
    error:
      result.error === null
        ? null
        : scrub(clip(`${result.error.code}: ${result.error.message}`, 20_000)),
    errorCode: result.error?.code ?? null,
    durationMs: snapshot.finishedAt === null ? null : snapshot.finishedAt - snapshot.createdAt,
    gaps: result.trace.gaps.map((gap) => scrub(`${gap.server}: ${gap.reason}`)),
    usage: usageRecord(result.usage),
    catalogCost: catalogCostRecord(result),
    modelRequestCount: result.modelRequests ? result.modelRequests.length : null,
    ...costRecord(result, prices),
    workspace: workspaceRecord(result.workspace),
    turns: result.turns.map((turn) => ({
      number: turn.snapshot.number,
      outcome: turn.snapshot.outcome,
      prompt: scrub(clip(turn.prompt, 500)),
      reply: turn.response === null ? null : scrub(clip(turn.response.text, 1000)),
      error:
        turn.error === null
          ? null
          : scrub(clip(`${turn.error.code}: ${turn.error.message}`, 20_000)),
      durationMs:
        turn.snapshot.finishedAt === null
          ? null
          : turn.snapshot.finishedAt - turn.snapshot.createdAt,
      gaps: turn.gaps.map((gap) => scrub(`${gap.server}: ${gap.reason}`)),
      toolCalls: turn.toolCalls.map((call) =>
        toTranscriptCall(call, turn.snapshot.createdAt, byId, secrets),
      ),
      usage: usageRecord(turn.usage),
      modelRequests: (turn.modelRequests ?? []).map(modelRequestRecord),
    })),
    outsideTurns: result.trace.toolCalls.filter((call) => call.turnId === null).length,
  };
  // The fields above are scrubbed one by one; this pass catches what they left whole (a
  // catalog's tool descriptions, the test name) so no echoed secret reaches executions/.
  return new SecretScrubber(secrets).scrubValue(record);
}

/** The name a direct client's record goes by where an agent's name would be. */
export const DIRECT_AGENT = "direct";

/**
 * Makes the record of a direct client (`kit.direct()`) that closed: its tool calls, each
 * with its JSON-RPC messages, in one turn of its own, so the report and the transcripts
 * show them as they show a session's.
 */
export function toDirectTranscript(
  closed: DirectClientClosed,
  testPath: string,
  testName: string,
  secrets: readonly SecretValue[] = secretValuesOf(),
): TranscriptRecord {
  const { trace } = closed;
  const byId = messagesById(trace.messages);
  const first = trace.messages[0]?.at ?? null;
  const methods = [
    ...new Set(
      trace.messages
        .map((message) => (message.message as { method?: unknown }).method)
        .filter((method): method is string => typeof method === "string"),
    ),
  ];
  const record: TranscriptRecord = {
    kind: "direct",
    testPath,
    testName,
    executionId: `direct-${createHash("sha1")
      .update(`${testPath}\u0000${testName}\u0000${closed.server}\u0000${closed.createdAt}`)
      .digest("hex")
      .slice(0, 12)}`,
    agent: DIRECT_AGENT,
    model: closed.server,
    sessionId: null,
    catalogs: catalogsOf(trace.messages),
    outcome: "completed",
    error: null,
    durationMs: closed.finishedAt - closed.createdAt,
    gaps: trace.gaps.map((gap) => scrubText(`${gap.server}: ${gap.reason}`, secrets)),
    turns: [
      {
        number: 1,
        outcome: "completed",
        prompt: `direct client of ${closed.server}: ${trace.messages.length} JSON-RPC message(s)${methods.length ? ` (${clip(methods.join(", "), 400)})` : ""}`,
        reply: null,
        error: null,
        durationMs: closed.finishedAt - closed.createdAt,
        toolCalls: trace.toolCalls.map((call) => toTranscriptCall(call, first, byId, secrets)),
      },
    ],
    outsideTurns: 0,
  };
  return new SecretScrubber(secrets).scrubValue(record);
}

/** The transcript as text, for a failed test's output (its trial labelled, when it ran in one). */
export function formatTranscript(
  record: TranscriptRecord & { readonly trialOf?: SessionTrial | null },
  shownAbove = "",
): string {
  if (record.kind === "direct") return formatDirectTranscript(record);
  const trial = record.trialOf ? ` · ${trialLabel(record.trialOf)}` : "";
  const lines = [
    `jest-m3 transcript · ${record.agent}${trial} · session ${record.sessionId ?? "(never opened)"} · outcome ${record.outcome}`,
  ];
  if (record.trialOf?.passed === false) {
    lines.push(`  ✗ the failing trial: ${trialLabel(record.trialOf)}`);
  }
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
    if (turn.error)
      lines.push(`    error: ${condenseErrorText(turn.error).replace(/\n/g, "\n           ")}`);
  }
  // The error the test threw is often this very one: say so instead of printing it twice.
  const errorMessage = record.error?.replace(/^M3_[A-Z_]+: /, "").split("\n")[0] ?? "";
  if (record.error && errorMessage !== "" && shownAbove.includes(errorMessage)) {
    lines.push(`  session error: ${record.errorCode ?? "error"} (the failure above)`);
  } else if (record.error) {
    lines.push(
      `  session error: ${condenseErrorText(record.error).replace(/\n/g, "\n                 ")}`,
    );
  }
  for (const gap of record.gaps) lines.push(`  evidence gap: ${gap}`);
  return lines.join("\n");
}

/** A direct client's record as text: its calls, no agent. */
function formatDirectTranscript(record: TranscriptRecord): string {
  const turn = record.turns[0];
  const lines = [`jest-m3 transcript · ${turn?.prompt ?? "direct client"}`];
  for (const call of turn?.toolCalls ?? []) {
    lines.push(
      `  tool call: ${call.server}:${call.tool} ${call.arguments} → ${call.status}${call.error ? `: ${call.error.split("\n")[0]}` : ""}`,
    );
  }
  if ((turn?.toolCalls.length ?? 0) === 0) lines.push("  tool calls: none");
  for (const gap of record.gaps) lines.push(`  evidence gap: ${gap}`);
  return lines.join("\n");
}

/**
 * Lines of a harness's stderr that are known not to be the problem: Codex's sandbox and
 * helper-binary warnings, printed on every start in a container or a temporary home.
 */
export const KNOWN_STDERR_NOISE: readonly RegExp[] = [
  /could not find bubblewrap/i,
  /bundled bubblewrap/i,
  /could not create PATH aliases/i,
  /Refusing to create helper binaries/i,
];

interface StderrSection {
  readonly title: string;
  readonly lines: string[];
}

/**
 * An error text (a session's or a thrown error's message) as a person should read it: the
 * failing MCP server's own stderr first, once; then what the harness said; then each
 * harness stderr section once, without {@link KNOWN_STDERR_NOISE}. Sections are the
 * `--- <who> stderr (last lines) ---` blocks core and the harnesses append. The full text
 * stays in the run's report.
 */
export function condenseErrorText(text: string): string {
  const parts = text.split(/\n(?=--- .+ ---\n?)/);
  const header = parts[0] ?? "";
  if (parts.length === 1) return text;
  const sections: StderrSection[] = [];
  const seen = new Set<string>();
  for (const part of parts.slice(1)) {
    const [titleLine = "", ...lines] = part.split("\n");
    const title = titleLine.replace(/^--- | ---$/g, "");
    const key = `${title}\u0000${lines.join("\n")}`;
    if (seen.has(key)) continue;
    seen.add(key);
    sections.push({ title, lines });
  }
  // Lines already shown by an earlier section (a harness tail repeated under another title).
  const shown = new Set<string>();
  const servers = sections.filter((section) => /^server "/.test(section.title));
  const others = sections.filter((section) => !/^server "/.test(section.title));
  const out: string[] = [];
  for (const section of servers) {
    const lines = section.lines.filter((line) => line.trim() !== "");
    if (lines.length === 0) continue;
    out.push(`MCP ${section.title}:`, ...lines.map((line) => `  ${line}`));
    lines.forEach((line) => shown.add(line));
  }
  out.push(header);
  let hidden = 0;
  for (const section of others) {
    const lines = section.lines.filter((line) => {
      if (line.trim() === "" || shown.has(line)) return false;
      if (KNOWN_STDERR_NOISE.some((noise) => noise.test(line))) {
        hidden += 1;
        return false;
      }
      return true;
    });
    lines.forEach((line) => shown.add(line));
    if (lines.length > 0) out.push(`--- ${section.title} ---`, ...lines);
  }
  if (hidden > 0) {
    out.push(
      `(${hidden} known warning line(s) of the harness left out; the run's report has the full text)`,
    );
  }
  return out.join("\n");
}
