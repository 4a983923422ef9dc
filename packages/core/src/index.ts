/**
 * `@jest-m3/core`: the runner-agnostic core of jest-m3. The kit, server specs, the direct
 * MCP client, traces and evidence. No test runner is imported here.
 *
 * @packageDocumentation
 */
export {
  MCPTestKit,
  openKits,
  type MCPTestKitOptions,
  type OwnedProcess,
  type CaptureOptions,
  type AgentsOptions,
} from "./kit/kit.js";
export { AgentSelection, primeReadiness, readinessKeyFor } from "./agents/agent.js";
export type { AgentSelectionInput } from "./agents/selection.js";
export { AgentSession, type SessionOptions, type SendOptions } from "./agents/session.js";
export { ExecutionOutcome, TurnOutcome, Lifecycle, type TurnLifecycle } from "./agents/outcomes.js";
export type {
  TurnResult,
  TurnSnapshot,
  ExecutionResult,
  ExecutionSnapshot,
  AgentIdentity,
} from "./agents/results.js";
export { harnessPackageNames } from "./agents/registry.js";
export { correlateTurn } from "./evidence/correlation.js";
export { canonicalJson } from "./evidence/canonical.js";
export {
  WireCapture,
  STDIO_RELAY_PATH,
  type CapturedServer,
  type CapturedStdioServer,
  type CapturedHttpServer,
} from "./wire/capture.js";
export { parseToolPolicy, InvalidToolPolicy, type ToolPolicy } from "./servers/tool-policy.js";
export { POLICY_DENIED_CODE, isPolicyDenialMessage } from "./wire/channel-protocol.js";
export { redactHeaders, isSecretName } from "./wire/redaction.js";
export type { StdioServer, HttpServer, ServerSpec } from "./servers/spec.js";
export {
  DirectClient,
  type DirectClientOptions,
  type CallOptions,
  type ServerIdentity,
} from "./direct/direct-client.js";
export type {
  Trace,
  TraceMessage,
  TraceEvent,
  ToolCall,
  ToolCallStatus,
  EvidenceSource,
  Direction,
  MessageKind,
  JsonRpcErrorValue,
  EvidenceGap,
  CorrelationState,
} from "./evidence/trace.js";
export { TraceRecorder, type Observation } from "./evidence/recorder.js";
export { unavailable, isUnavailable, type Unavailable } from "./evidence/unavailable.js";
export { monotonicNow } from "./evidence/clock.js";
export {
  M3Error,
  KitClosed,
  InvalidServerSpec,
  ServerStartError,
  TransportError,
  ProtocolError,
  OperationTimeout,
  TraceStillOpen,
  HarnessNotReady,
  InvalidSelection,
  UnknownHarness,
  SessionBusy,
  SessionStillOpen,
  SessionClosed,
  QueryError,
} from "./errors.js";
export {
  ManagedProcess,
  childEnvironment,
  isAlive as isProcessAlive,
  processStartTime,
  INHERITED_ENV,
  type ProcessLaunch,
  type ExitInfo,
} from "./processes/managed-process.js";
export {
  defineHarness,
  isToolAllowed,
  HarnessStartError,
  type HarnessDefinition,
  type HarnessLaunch,
  type HarnessSession,
  type HarnessHealth,
  type HarnessEvent,
  type AdapterTurn,
  type AdapterTurnOutcome,
  type AdapterTurnRequest,
  type ReportedToolCall,
  type Readiness,
  type ReadinessContext,
  type Capabilities,
  type Capability,
  type CapabilityStatus,
  type ModelProvider,
  type SelectionSpec,
} from "./harness/contract.js";
export {
  queryToolCalls,
  toQuerySubject,
  jsonEquals,
  type ToolCallQuery,
  type QueryOutcome,
  type QuerySubject,
  type QuerySubjectInput,
  type Equality,
  type TurnRef,
  type EvidenceFilter,
} from "./evidence/query.js";
export { observeKits, type KitObserver } from "./kit/observers.js";
export { resolveHarness } from "./agents/registry.js";
export { setRunProvider, getRunProvider } from "./agents/run-provider.js";
export {
  conformanceChecks,
  ConformanceFailure,
  type ConformanceOptions,
  type ConformanceCheck,
} from "./harness/conformance.js";
