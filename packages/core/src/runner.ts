/**
 * `@jest-m3/core/runner`: what a test-runner binding (the jest-m3 preset, a Vitest or
 * node:test binding) needs beyond the user API: observing kits, closing those a test left
 * open, priming readiness probed in a global setup, and the run's provider.
 *
 * @packageDocumentation
 */
export { openKits } from "./kit/kit.js";
export { observeKits, type KitObserver } from "./kit/observers.js";
export { primeReadiness, readinessKeyFor } from "./agents/agent.js";
export { setRunProvider, getRunProvider } from "./agents/run-provider.js";
export { resolveHarness, harnessPackageNames } from "./agents/registry.js";
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
export {
  conformanceChecks,
  type ConformanceOptions,
  type ConformanceCheck,
} from "./harness/conformance.js";
export { processStartTime, isAlive as isProcessAlive } from "./processes/managed-process.js";
