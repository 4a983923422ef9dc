/**
 * `@jest-m3/core/runner`: what a test-runner binding (the jest-m3 preset, a Vitest or
 * node:test binding) needs beyond the user API: the runtime it installs (observers, kits
 * left open, readiness probed in a global setup, the run's provider), the query engine its
 * matchers format, and the conformance checks it wraps as tests.
 *
 * @packageDocumentation
 */
export {
  M3Runtime,
  defaultRuntime,
  installRuntime,
  singleProvider,
  type KitObserver,
  type RunProvider,
  type RunProviderSource,
  type RuntimeOptions,
  type TrackedKit,
} from "./runtime/runtime.js";
export type { DirectClientClosed } from "./kit/context.js";
// The input checks (also `@jest-m3/core/validation`).
export * from "./validation.js";
export { SecretScrubber, MIN_SECRET_LENGTH, type SecretValue } from "./runtime/secret-scrubber.js";
export { readinessKeyFor } from "./agents/readiness-key.js";
export {
  resolveHarness,
  locateHarness,
  harnessPackageNames,
  availableHarnessNames,
  type HarnessManifest,
} from "./agents/registry.js";
export { suggestName } from "./text/suggest.js";
export { stopWarmPools } from "./adapter-kit/warm-registry.js";
export { stopSpareServers, SPARE_SERVERS_VARIABLE } from "./wire/spare-servers.js";
export { canonicalJson } from "./evidence/canonical.js";
export { toolCatalogs, type ListedTool, type ToolCatalog } from "./evidence/catalogs.js";
export { harnessDialects } from "./harness/dialects.js";
// The stdio relay that wraps a captured server (what `jest-m3 doctor` reports of it).
export { STDIO_RELAY_PATH } from "./wire/captured-server.js";
export {
  stdioRelayLaunch,
  stdioRelayChoice,
  nativeRelayBuildCommand,
  STDIO_RELAY_VARIABLE,
} from "./wire/relay-launch.js";
export {
  queryToolCalls,
  queryTrajectory,
  normalizeTrajectory,
  negotiatedProtocols,
  resultProjection,
  sameMultiset,
  toolErrorText,
  notCountedBecause,
  suggestToolName,
  describeTurn,
  toQuerySubject,
  jsonEquals,
  type ToolCallQuery,
  type TrajectoryQuery,
  type TrajectoryOutcome,
  type TrajectoryMode,
  type TrajectoryStep,
  type TrajectoryCall,
  type NormalizedTrajectory,
  type NegotiatedProtocol,
  type NearMiss,
  type ArgumentsMatch,
  type QueryOutcome,
  type QuerySubject,
  type QuerySubjectInput,
  type Equality,
  type TurnRef,
  type EvidenceFilter,
} from "./evidence/query.js";
export {
  queryChangedFiles,
  fileContentOf,
  ChangedFilesQueryError,
  type ChangedFileStep,
  type ChangedFilesMode,
  type ChangedFilesOutcome,
  type FileContent,
} from "./workspace/query.js";
export {
  conformanceChecks,
  ConformanceFailure,
  type ConformanceOptions,
  type ConformanceCheck,
} from "./kit/conformance.js";
export {
  processStartTime,
  isAlive as isProcessAlive,
  stopIfSame,
  signalIfSame,
  stillSame,
  type SeenProcess,
} from "./processes/managed-process.js";
export { keepingAlive } from "./processes/keep-alive.js";
export { isSecretName, redactHeaders } from "./wire/redaction.js";
export { isUsable, describeCapability } from "./harness/contract.js";
export { describeExit, stderrSection, toResultError } from "./errors.js";
