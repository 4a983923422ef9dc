/**
 * `@jest-m3/scripted-model`: a loopback model server that speaks the OpenAI Responses API
 * (streaming) from a script, or records and replays real provider traffic. It lets agent
 * tests (Codex and any Responses-compatible agent) run offline, with no API key, and give the
 * same result every run.
 *
 * @packageDocumentation
 */
export { startScriptedModel, type ScriptedModelOptions } from "./scripted-server";
export {
  startRecordingModel,
  startReplayModel,
  type RecordingOptions,
  type ReplayOptions,
  type Upstream,
} from "./cassette-server";
export type { ScriptedModel, ScriptedProvider, ServerOptions } from "./server";
export {
  loadScript,
  validateScript,
  STEP_KINDS,
  type CallArguments,
  type CallStep,
  type Conversation,
  type CutStep,
  type DelayStep,
  type FailStep,
  type HangStep,
  type HttpErrorStep,
  type JsonObject,
  type JsonRegExp,
  type JsonValue,
  type ParallelStep,
  type ReplyStep,
  type Rule,
  type Script,
  type Step,
  type StepContext,
  type TextMatcher,
  type ToolReference,
  type ToolResult,
  type When,
} from "./script";
export { TEMPLATE_FILTERS, TEMPLATE_ROOTS } from "./template";
export type { Decision, DecidedCall, DecisionSource } from "./decision";
export { Journal, type JournalConversation, type JournalEntry } from "./journal";
export {
  CASSETTE_FORMAT,
  CASSETTE_VERSION,
  fingerprint,
  loadCassette,
  summarizeRequest,
  type Cassette,
  type Interaction,
  type RecordedResponse,
  type RequestSummary,
  type SummaryItem,
} from "./cassette";
export type { SseEvent } from "./responses-stream";
export {
  InvalidCassette,
  InvalidScript,
  MissingApiKey,
  ScriptedModelError,
  ScriptedModelProblems,
  ServerStartFailed,
} from "./errors";
