/**
 * `@jest-m3/core`: the runner-agnostic core of jest-m3, user API. The kit, server specs,
 * the direct MCP client, agent selections and sessions, results, traces and errors.
 * Adapter authors import `@jest-m3/core/harness`; test-runner bindings
 * `@jest-m3/core/runner`; test doubles live in `@jest-m3/core/testing`.
 *
 * @packageDocumentation
 */
export {
  MCPTestKit,
  type MCPTestKitOptions,
  type OwnedProcess,
  type CaptureOptions,
  type AgentsOptions,
} from "./kit/kit.js";
export {
  M3Runtime,
  type RuntimeOptions,
  type RunProvider,
  type RunProviderSource,
} from "./runtime/runtime.js";
export type { StdioServer, HttpServer, ServerSpec } from "./servers/spec.js";
export { InvalidToolPolicy, type ToolPolicy } from "./servers/tool-policy.js";
export {
  startWebServer,
  WebServerFailed,
  type WebServer,
  type WebServerOptions,
} from "./servers/web-server.js";
export {
  DirectClient,
  type DirectClientOptions,
  type CallOptions,
  type ServerIdentity,
  type ToolCallOptions,
  type SamplingHandler,
  type CompletionRef,
  type CompleteRequest,
  type ServerRequestRecord,
  type LogMessage,
} from "./direct/direct-client.js";
export {
  NotificationStream,
  type ReceivedNotification,
  type NotificationFilter,
  type ListenOptions,
} from "./direct/notifications.js";
export type {
  ElicitationPlan,
  ElicitationPlanInput,
  ElicitationRule,
  ElicitationMatch,
  ElicitationAnswer,
  ElicitationRequest,
} from "./direct/elicitation-plan.js";
export { secretFromEnv, type SecretRef, type HttpAuth } from "./direct/secrets.js";
export type { OAuthOptions } from "./direct/oauth.js";
export {
  elicitationsOf,
  elicitationMatchesQuery,
  type Elicitation,
  type ElicitationQuery,
} from "./evidence/elicitations.js";
export { AgentSelection } from "./agents/agent.js";
export type { AgentSelectionInput } from "./agents/selection.js";
export { AgentSession } from "./agents/session.js";
export type { SessionOptions, SendOptions } from "./agents/session-spec.js";
export type { WorkspaceOptions } from "./workspace/spec.js";
export type {
  WorkspaceResult,
  WorkspaceKind,
  FileChange,
  FileChangeKind,
  WorkspaceArtifact,
} from "./workspace/result.js";
export { WorkspaceError } from "./workspace/workspace.js";
export {
  ExecutionOutcome,
  TurnOutcome,
  Lifecycle,
  type TurnLifecycle,
} from "./evidence/outcomes.js";
export type {
  TurnResult,
  TurnSnapshot,
  ExecutionResult,
  ExecutionSnapshot,
  AgentIdentity,
} from "./evidence/results.js";
export type {
  Readiness,
  Capabilities,
  Capability,
  CapabilityStatus,
  ModelProvider,
  ProviderDialect,
} from "./harness/contract.js";
export { WireCapture } from "./wire/capture.js";
export type {
  CapturedServer,
  CapturedStdioServer,
  CapturedHttpServer,
} from "./wire/captured-server.js";
export type {
  Trace,
  TraceMessage,
  TraceEvent,
  TraceVerdict,
  ToolCall,
  ToolCallStatus,
  EvidenceSource,
  Direction,
  MessageKind,
  JsonRpcErrorValue,
  EvidenceGap,
  CorrelationState,
} from "./evidence/trace.js";
export { isUnavailable, type Unavailable } from "./evidence/unavailable.js";
export type {
  ModelRequest,
  ModelToolCall,
  OfferedModelTool,
  TokenUsage,
} from "./provider-tap/records.js";
export {
  catalogCost,
  catalogCostOf,
  countsInUsage,
  modelCost,
  sumUsage,
  usageOf,
  type CatalogCost,
  type ModelCost,
  type ModelPrice,
  type PriceTable,
  type ServerCatalogCost,
} from "./provider-tap/usage.js";
export { ProviderTap, type TapUpstream } from "./provider-tap/tap.js";
export { requestedCalls, type RequestedCall } from "./provider-tap/requested-calls.js";
export type { TapDialect } from "./provider-tap/dialect-reading.js";
export {
  M3Error,
  KitClosed,
  InvalidArgument,
  InvalidServerSpec,
  InvalidSelection,
  InvalidSessionOptions,
  InvalidHarness,
  UnknownHarness,
  ServerStartError,
  TransportError,
  ProtocolError,
  OperationTimeout,
  ClientClosed,
  TraceStillOpen,
  HarnessNotReady,
  SessionBusy,
  SessionStillOpen,
  SessionClosed,
  QueryError,
  SchemaValidationError,
  RepeatingCursor,
  NotificationTimeout,
  ElicitationUnexpected,
  ElicitationRoundLimit,
  MissingSecret,
  RecordingError,
  type SchemaIssue,
  type ErrorCode,
  type ResultError,
} from "./errors.js";
export { HarnessStartError } from "./harness/contract.js";
export { HarnessOpenTimeout } from "./agents/harness-launch.js";
export {
  askJudge,
  checkJudgeAsk,
  checkJudgeSelection,
  resolveJudge,
  judgeEvidence,
  judgePrompt,
  verdictsOf,
  evaluators,
  InvalidJudge,
  JudgeFailed,
  JUDGE_INSTRUCTIONS,
  VERDICT_TOOL,
  type AskJudgeOptions,
  type Verdict,
  type JudgeFailure,
  type JudgeEvidence,
  type JudgeSubject,
  type JudgedTurn,
  type JudgedToolCall,
  type JudgeSelection,
  type JudgeProvider,
  type ResolvedJudge,
  type JudgeContext,
  type JudgePrompt,
  type JudgeUsage,
  type Evaluation,
  type ExpectedCall,
} from "./judge/index.js";
