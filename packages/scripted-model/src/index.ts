/**
 * `@jest-m3/scripted-model`: a loopback model server that answers from a script, or records
 * and replays real provider traffic, in four provider dialects on one port: the OpenAI
 * Responses API (Codex), OpenAI Chat Completions (OpenCode), Anthropic Messages (Claude Code)
 * and the Gemini API (Gemini CLI). It lets agent tests run offline, with no API key, and give
 * the same result every run.
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
export type { DialectProvider, ScriptedModel, ScriptedProvider, ServerOptions } from "./server";
export { PROVIDER_DIALECTS, type ProviderDialect, type SidePurpose } from "./dialects/dialect";
export { scriptFromCassette } from "./script-from-cassette";
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
  type ScriptedUsage,
  type Step,
  type StepContext,
  type TextMatcher,
  type ToolReference,
  type ToolResult,
  type When,
} from "./script";
export { TEMPLATE_FILTERS, TEMPLATE_ROOTS } from "./template";
export type { Decision, DecidedCall, DecisionSource } from "./decision";
export {
  Journal,
  JOURNAL_SECRETS_PATH,
  type JournalConversation,
  type JournalEntry,
} from "./journal";
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
