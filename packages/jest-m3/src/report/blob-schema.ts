/**
 * The shape of a run's blob, checked field by field before `merge-reports` uses it. A blob
 * comes from another machine (a CI shard's artifact): every number must be a number, every
 * status one of its words, every text a string, so nothing in it reaches the report page
 * other than as the data its field says. Unknown keys are dropped (the report reads none);
 * run.json keeps its other keys, which only report.json carries.
 */
import { z } from "zod";
import type { EvidenceSource, ToolCallStatus } from "@jest-m3/core";
import type {
  TranscriptModelRequest,
  TranscriptRecord,
  TranscriptWorkspace,
} from "../shared/transcript.js";
import type { VerdictRecord } from "./verdicts.js";
import type { JestAssertion, JestFileResult } from "./build.js";

/** The run outcomes a session or turn can end with (core's `ExecutionOutcome`). */
const OUTCOMES = ["completed", "failed", "timed_out", "cancelled", "interrupted"] as const;
const TOOL_CALL_STATUSES = [
  "success",
  "tool_error",
  "protocol_error",
  "transport_error",
  "policy_denied",
  "cancelled",
  "timed_out",
  "incomplete",
] as const satisfies readonly ToolCallStatus[];
const EVIDENCE = ["wire", "reported", "both"] as const satisfies readonly EvidenceSource[];
/** Jest's statuses of a test. */
const JEST_STATUSES = [
  "passed",
  "failed",
  "skipped",
  "pending",
  "todo",
  "disabled",
  "focused",
] as const;

const text = z.string();
const nullableText = z.string().nullable();
const count = z.int().min(0);
const milliseconds = z.number().nullable();
const outcome = z.enum(OUTCOMES).nullable();

const messageSchema = z.object({
  direction: z.enum(["to_server", "from_server"]),
  kind: text,
  afterMs: milliseconds,
  json: text,
  origin: text.optional(),
});

const callSchema = z.object({
  server: text,
  tool: text,
  arguments: text,
  status: z.enum(TOOL_CALL_STATUSES),
  evidence: z.enum(EVIDENCE),
  id: text.optional(),
  result: nullableText.optional(),
  error: nullableText.optional(),
  latencyMs: milliseconds.optional(),
  offsetMs: milliseconds.optional(),
  messages: z.array(messageSchema).optional(),
});

const tokens = z.number().min(0);
const usageSchema = z
  .object({
    inputTokens: tokens,
    outputTokens: tokens,
    totalTokens: tokens,
    cachedInputTokens: tokens.nullable(),
    reasoningTokens: tokens.nullable(),
    source: text,
    requests: count,
  })
  .nullable();

const modelRequestSchema = z.object({
  id: text,
  model: nullableText,
  dialect: text,
  status: z.int().nullable(),
  latencyMs: milliseconds,
  generation: z.boolean(),
  stream: z.boolean(),
  complete: z.boolean(),
  error: nullableText,
  requestBytes: count,
  messages: count,
  tools: count,
  toolBytes: count,
  usage: usageSchema,
  usageNote: nullableText,
  toolCalls: z.array(text),
});

const offeredToolSchema = z.object({ name: text, bytes: count });

const fileChangeSchema = z.object({
  path: text,
  change: z.enum(["added", "modified", "deleted", "renamed"]),
  from: nullableText,
  type: z.enum(["file", "symlink"]),
  binary: z.boolean(),
  diff: nullableText,
  clipped: z.boolean(),
  size: count.nullable(),
  note: nullableText,
});

const workspaceSchema = z.object({
  kind: z.enum(["copy", "gitWorktree", "readOnly"]),
  source: text,
  ref: nullableText,
  commit: nullableText,
  kept: z.boolean(),
  changes: z.array(fileChangeSchema),
  artifacts: z.array(
    z.object({ path: text, exists: z.boolean(), size: count.nullable(), binary: z.boolean() }),
  ),
  error: nullableText,
});

const turnSchema = z.object({
  number: z.int().min(1),
  outcome,
  prompt: text,
  reply: nullableText,
  error: nullableText,
  durationMs: milliseconds.optional(),
  gaps: z.array(text).optional(),
  toolCalls: z.array(callSchema),
  usage: usageSchema.optional(),
  modelRequests: z.array(modelRequestSchema).optional(),
});

const sessionSchema = z.object({
  kind: z.literal("direct").optional(),
  testPath: text,
  testName: text,
  executionId: text,
  agent: text,
  model: text,
  harness: text.optional(),
  version: nullableText.optional(),
  sessionId: nullableText,
  provider: z
    .object({ name: text, baseUrl: text, dialect: text, envKey: text.optional() })
    .nullable()
    .optional(),
  catalogs: z
    .array(
      z.object({
        server: text,
        tools: z.array(z.object({ name: text, schemaHash: text, description: text.optional() })),
      }),
    )
    .optional(),
  trial: z.int().min(1).nullable().optional(),
  outcome,
  error: nullableText,
  errorCode: nullableText.optional(),
  durationMs: milliseconds.optional(),
  gaps: z.array(text),
  usage: usageSchema.optional(),
  catalogCost: z
    .object({
      servers: z.array(
        z.object({
          server: text,
          requestId: nullableText,
          tools: z.array(offeredToolSchema),
          bytes: count,
          estimatedTokens: count,
        }),
      ),
      agentTools: z.array(offeredToolSchema),
      bytes: count,
      estimatedTokens: count,
    })
    .nullable()
    .optional(),
  modelRequestCount: count.nullable().optional(),
  cost: z.number().min(0).nullable().optional(),
  costNote: nullableText.optional(),
  workspace: workspaceSchema.nullable().optional(),
  turns: z.array(turnSchema),
  outsideTurns: count,
});

const assertionSchema = z.object({
  fullName: text,
  title: text,
  status: z.enum(JEST_STATUSES),
  duration: milliseconds.optional(),
  failureMessages: z.array(text).optional(),
});

const fileSchema = z.object({
  testFilePath: text.min(1),
  testResults: z.array(assertionSchema),
  testExecError: z.object({ message: text.optional() }).nullable().optional(),
  failureMessage: nullableText.optional(),
});

const agentSchema = z.object({ harness: text, model: text, version: nullableText });

const rate = z.number().min(0).max(1);
const trialsSchema = z
  .object({
    testPath: text,
    testName: text,
    agent: agentSchema.nullable().optional(),
    trials: count,
    passed: count,
    interval: z.tuple([rate, rate]),
    need: text,
    failedTrials: z.array(z.int().min(1)).optional(),
  })
  .refine((record) => record.passed <= record.trials, {
    message: "passed must not exceed trials.",
    path: ["passed"],
  });

const score = z.number().min(0).max(1);
const verdictSchema = z.object({
  testPath: text,
  testName: text,
  trial: z.int().min(1).nullable(),
  isNot: z.boolean(),
  criteria: text,
  threshold: score.nullable(),
  passed: z.boolean().optional(),
  pass: z.boolean().optional(),
  score: score.optional(),
  reasoning: text.optional(),
  judge: z
    .object({
      provider: text,
      baseUrl: text,
      wireApi: text,
      model: text,
      credentialEnv: nullableText,
    })
    .optional(),
  subject: z.object({ executionId: nullableText, turn: z.int().min(1).nullable() }).optional(),
  latencyMs: z.number().min(0).optional(),
  usage: z
    .object({ inputTokens: tokens.nullable(), outputTokens: tokens.nullable() })
    .nullable()
    .optional(),
  at: z.number().optional(),
  error: z.object({ reason: text, status: z.int().nullable(), message: text }).optional(),
});

const runSchema = z.looseObject({
  runId: text.optional(),
  provider: nullableText.optional(),
  readiness: z
    .record(
      text,
      z.looseObject({
        readiness: z
          .looseObject({
            ready: z.boolean().optional(),
            harness: z.looseObject({ version: nullableText.optional() }).optional(),
          })
          .optional(),
        error: text.optional(),
      }),
    )
    .optional(),
});

const shardSchema = z
  .object({ index: z.int().min(1), count: z.int().min(1) })
  .refine((shard) => shard.index <= shard.count, {
    message: "index must not exceed count.",
    path: ["index"],
  });

/** A run's blob (see `RunBlob`), every field checked. */
export const blobSchema = z.object({
  kind: z.literal("jest-m3-blob"),
  schema: z.literal(1),
  runId: nullableText,
  rootDir: text.min(1),
  shard: shardSchema.nullable(),
  run: runSchema.nullable(),
  files: z.array(fileSchema),
  sessions: z.array(sessionSchema),
  trials: z.array(trialsSchema),
  // Blobs written before judges were recorded have none.
  verdicts: z.array(verdictSchema).default([]),
  // Blobs written before selections and merged shards were recorded have neither.
  selection: z
    .object({
      patterns: z.array(text),
      testNamePattern: nullableText,
      filters: z.array(text),
      projects: z.array(text),
    })
    .nullable()
    .optional(),
  shards: z
    .object({
      count: z.int().min(1),
      merged: z.array(z.int().min(1)),
      missing: z.array(z.int().min(1)),
    })
    .nullable()
    .optional(),
  success: z.boolean(),
  startedAt: z.number().nullable(),
  finishedAt: z.number(),
});

// The schema and the records it checks name the same fields: a field added to a record and
// not here fails to compile (it would otherwise be dropped from every merged run).
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never]
  ? true
  : { readonly missing: Exclude<keyof A, keyof B>; readonly extra: Exclude<keyof B, keyof A> };
type Session = z.output<typeof sessionSchema>;
type Turn = TranscriptRecord["turns"][number];
type Call = Turn["toolCalls"][number];
type Verdict = z.output<typeof verdictSchema>;
const covered: [
  SameKeys<TranscriptRecord, Session>,
  SameKeys<Turn, Session["turns"][number]>,
  SameKeys<Call, Session["turns"][number]["toolCalls"][number]>,
  SameKeys<JestFileResult, z.output<typeof fileSchema>>,
  SameKeys<JestAssertion, z.output<typeof assertionSchema>>,
  SameKeys<VerdictRecord, Verdict>,
  SameKeys<NonNullable<VerdictRecord["judge"]>, NonNullable<Verdict["judge"]>>,
  SameKeys<NonNullable<VerdictRecord["error"]>, NonNullable<Verdict["error"]>>,
  SameKeys<TranscriptModelRequest, z.output<typeof modelRequestSchema>>,
  SameKeys<NonNullable<Turn["usage"]>, NonNullable<z.output<typeof usageSchema>>>,
  SameKeys<TranscriptWorkspace, z.output<typeof workspaceSchema>>,
  SameKeys<
    TranscriptWorkspace["changes"][number],
    z.output<typeof workspaceSchema>["changes"][number]
  >,
  Exclude<ToolCallStatus, (typeof TOOL_CALL_STATUSES)[number]>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, undefined as never];
void covered;
