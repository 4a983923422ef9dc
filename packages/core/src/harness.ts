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
  type AgentReportedUsage,
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
