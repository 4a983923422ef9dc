/**
 * `@jest-m3/core/harness`: the harness contract, for adapter authors. Define an adapter
 * with {@link defineHarness}, read what a session gives it in {@link HarnessLaunch}, answer
 * each turn with an {@link AdapterTurn}, say what works with {@link readinessOf}, and prove
 * it with {@link conformanceChecks}. The parts an adapter may compose (agent process,
 * JSON-RPC client, turn slot, executables, readiness builders, warm pool, agent errors)
 * are `@jest-m3/core/adapter-kit`.
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
} from "./kit/conformance.js";
// What a launch and a reported call are made of.
export type {
  CapturedServer,
  CapturedStdioServer,
  CapturedHttpServer,
} from "./wire/captured-server.js";
export type { ToolPolicy } from "./servers/tool-policy.js";
export type { ToolCallStatus } from "./evidence/trace.js";
export { unavailable, isUnavailable, type Unavailable } from "./evidence/unavailable.js";
export { monotonicNow } from "./evidence/clock.js";
export { M3Error } from "./errors.js";

// Moved to @jest-m3/core/adapter-kit (or another entry); kept here only until the code
// that still imports them from this entry has moved. Import them from the entry named.
export {
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  ManagedProcess,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  childEnvironment,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  isProcessAlive,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  type ExitInfo,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  isRunnableFile,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  installedBin,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  onPath,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  runnable,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  resolveAgentExecutable,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  type ExecutableLookup,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  type ExecutableSearch,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  type ExecutableSource,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  compareVersions,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  parseVersion,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  readVersion,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  type AgentVersion,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  type VersionProbe,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  announceWarmProcess,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  registerWarmPool,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  holdProcess,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  killProcessGroup,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  stopSessionServers,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  warmStartKey,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  isPolicyDenialMessage,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  POLICY_DENIED_CODE,
  /** @deprecated Import from `@jest-m3/core/adapter-kit`. */
  isSecretName,
} from "./adapter-kit.js";
/** @deprecated Import from `@jest-m3/core/runner`. */
export { processStartTime } from "./processes/managed-process.js";
/** @deprecated Core's own tests only; not part of the contract. */
export { correlateTurn } from "./evidence/correlation.js";
/** @deprecated Tests only; a launch gives its policy ready made. */
export { parseToolPolicy } from "./servers/tool-policy.js";
/** @deprecated The relay is core's business, not an adapter's; kept for existing importers. */
export { STDIO_RELAY_PATH } from "./wire/captured-server.js";
/** @deprecated The relay is core's business, not an adapter's; kept for existing importers. */
export {
  stdioRelayLaunch,
  stdioRelayChoice,
  nativeRelayBuildCommand,
  STDIO_RELAY_VARIABLE,
} from "./wire/relay-launch.js";
