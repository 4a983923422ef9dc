/**
 * `@jest-m3/core/lean`: the part of the runner API that a test runner's main process needs
 * before (or without) any kit — process identity, errors, redaction, reading recorded
 * evidence, harness names — loading neither the kit, the MCP SDK nor zod (the input
 * checks are `@jest-m3/core/validation`).
 *
 * Every name here is also exported by `@jest-m3/core/runner` (or the main entry): the same
 * functions and classes, so `instanceof` and
 * identity hold across both. A reporter or
 * global setup that imports from here costs a run whose tests never open a kit about a
 * third of what the full entry costs to load.
 *
 * @packageDocumentation
 */
export {
  signalIfSame,
  stillSame,
  processStartTime,
  isAlive as isProcessAlive,
} from "./processes/managed-process.js";
export { PROVIDER_DIALECTS, describeCapability, isUsable } from "./harness/contract.js";
export { isUnavailable } from "./evidence/unavailable.js";
export { canonicalJson } from "./evidence/canonical.js";
export { toolCatalogs } from "./evidence/catalogs.js";
export { toolErrorText } from "./evidence/query.js";
export { M3Error } from "./errors.js";
export { isSecretName } from "./wire/redaction.js";
export { stdioRelayLaunch } from "./wire/relay-launch.js";
export { SecretScrubber } from "./runtime/secret-scrubber.js";
export { defaultRuntime } from "./runtime/runtime.js";
export { checkInput } from "./validation/check-input.js";
export { harnessDialects } from "./harness/dialects.js";
export { readinessKeyFor } from "./agents/readiness-key.js";
export { locateHarness, resolveHarness } from "./agents/registry.js";
export { suggestName } from "./text/suggest.js";
export { keepingAlive } from "./processes/keep-alive.js";
