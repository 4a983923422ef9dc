/**
 * `@jest-m3/core/harness`: everything a harness adapter author needs. Define an adapter
 * with {@link defineHarness}, read what a session gives it in {@link HarnessLaunch}, answer
 * each turn with an {@link AdapterTurn}, and prove it with the conformance suite.
 *
 * @example
 * ```ts
 * import { defineHarness, readinessOf, type HarnessLaunch } from "@jest-m3/core/harness";
 * export default defineHarness({ name: "my-agent", dialects: ["chat-completions"], readiness, open });
 * ```
 *
 * @packageDocumentation
 */
export {
  defineHarness,
  isToolAllowed,
  isUsable,
  readinessOf,
  describeCapability,
  HarnessStartError,
  PROVIDER_DIALECTS,
  OPTIONAL_CAPABILITIES,
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
  type ProbeCache,
  type Capabilities,
  type Capability,
  type CapabilityStatus,
  type ModelProvider,
  type ProviderDialect,
  type SelectionSpec,
} from "./harness/contract.js";
export type {
  ElicitationResponder,
  ElicitationDecision,
  ElicitationDecisionSource,
  AgentElicitationRequest,
  ElicitationAnswer,
  ElicitationRequest,
} from "./harness/elicitation-responder.js";
export {
  conformanceChecks,
  ConformanceFailure,
  type ConformanceOptions,
  type ConformanceCheck,
} from "./harness/conformance.js";
export {
  STDIO_RELAY_PATH,
  type CapturedServer,
  type CapturedStdioServer,
  type CapturedHttpServer,
} from "./wire/captured-server.js";
export {
  stdioRelayLaunch,
  stdioRelayChoice,
  nativeRelayBuildCommand,
  NATIVE_RELAY_PATH,
  STDIO_RELAY_NOTICE_VARIABLE,
  STDIO_RELAY_VARIABLE,
  type StdioRelayLaunch,
} from "./wire/relay-launch.js";
export { parseToolPolicy, type ToolPolicy } from "./servers/tool-policy.js";
export { correlateTurn } from "./evidence/correlation.js";
export type { ToolCallStatus } from "./evidence/trace.js";
export { unavailable, isUnavailable, type Unavailable } from "./evidence/unavailable.js";
export { monotonicNow } from "./evidence/clock.js";
export { canonicalJson } from "./evidence/canonical.js";
export { isSecretName, redactHeaders } from "./wire/redaction.js";
export { POLICY_DENIED_CODE, isPolicyDenialMessage } from "./wire/channel-protocol.js";
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
  M3Error,
  InvalidArgument,
  describeExit,
  stderrSection,
  type ErrorCode,
  type ResultError,
} from "./errors.js";
export type { SelectionSpec as AgentSelectionSpec } from "./harness/contract.js";
export {
  installedBin,
  isRunnableFile,
  onPath,
  resolveAgentExecutable,
  runnable,
  type ExecutableLookup,
  type ExecutableSearch,
  type ExecutableSource,
} from "./adapter-kit/executables.js";
export {
  compareVersions,
  parseVersion,
  readVersion,
  type AgentVersion,
  type VersionProbe,
} from "./adapter-kit/versions.js";
export { announceWarmProcess, registerWarmPool } from "./adapter-kit/warm-registry.js";
export {
  filesUnder,
  holdProcess,
  killProcessGroup,
  stopSessionServers,
  warmStartKey,
  type WarmStartSpec,
} from "./adapter-kit/warm-processes.js";
