/**
 * `@jest-m3/core/adapter-kit`: small optional parts a harness adapter composes, so an
 * adapter holds only what is true of its agent (protocol, configuration, home, turn
 * reading, reported calls, readiness facts, approvals). No base class an adapter must
 * extend ({@link SlotSession} is one it may) and no hooks: each part takes functions and
 * plain values, and names no agent.
 *
 * - the agent process: {@link AgentProcess} (exit, stderr tail, close with grace);
 * - framing and requests: {@link JsonLines}, {@link PendingRequests} (and {@link within}
 *   for an answer that is no request), and over both a line-delimited {@link JsonRpcClient};
 * - one turn at a time: {@link TurnSlot} (dead agent, busy, abort → interrupt, grace, health);
 *   a session's process id, interrupt and health from its slot: {@link SlotSession};
 * - start failures: {@link startFailure}, {@link tornDown}, {@link startOrUndo};
 * - a reported call's status and shape, in one wording: {@link callOutcome},
 *   {@link unfinishedCall}, {@link reportedCall};
 * - executables and versions: {@link resolveAgentExecutable}, {@link readVersion},
 *   {@link versionCapability} (one tested version), {@link rangeCapability} (a tested range);
 * - the Node an agent runs on when it needs a newer one than the tests': {@link findAgentNode},
 *   {@link agentNodeCapability} (and the installer an adapter's install script calls,
 *   {@link AGENT_NODE_INSTALLER});
 * - readiness builders: {@link agentChecks}, {@link agentCredentials}, {@link providerCredentials},
 *   {@link sessionCapabilities}, {@link worst}, {@link probeOnce};
 * - warm pools: {@link WarmPool} (shared or exclusive leases), {@link warmStartKey};
 * - approvals and elicitations: {@link toolDecision}, {@link elicitationRequest};
 * - harness options: {@link optionReader} (unknown names, booleans, milliseconds, ...), and
 *   for an agent given by command {@link readStrings}, {@link readAgentEnv}, {@link readDialects},
 *   {@link checkPlaceholders};
 * - flattened tool names: {@link ToolNaming}, {@link nameCollisions},
 *   {@link assertDistinctToolNames} (refused before spawn), {@link identifyFlattened},
 *   {@link parseToolName} (a name under an agent's unknown rule);
 * - errors with one code per meaning: {@link AgentExited}, {@link AgentTimeout},
 *   {@link AgentProtocolError}, {@link InvalidHarnessOptions}.
 *
 * The contract itself (`defineHarness`, the launch, turn and readiness types) is
 * `@jest-m3/core/harness`.
 *
 * @example
 * ```ts
 * import { JsonRpcClient, TurnSlot, startFailure } from "@jest-m3/core/adapter-kit";
 *
 * const client = new JsonRpcClient(launch.spawn({ label: "my-agent", command, args, env }), { agent: "my-agent" });
 * const slot = new TurnSlot<MyTurn>({ names: { agent: "My Agent" }, agent: client.agent, stderrTail: () => client.agent.stderrTail(), interrupt: () => client.request("cancel") });
 * ```
 *
 * @packageDocumentation
 */
export {
  agentErrorClasses,
  AgentExited,
  AgentTimeout,
  AgentProtocolError,
  InvalidHarnessOptions,
  errorMessage,
  type AgentErrorClasses,
  type AgentErrorCode,
} from "./adapter-kit/agent-errors.js";
export { AgentProcess, describeAgentExit } from "./adapter-kit/agent-process.js";
export {
  JsonLines,
  isJsonObject,
  MAX_LINE_LENGTH,
  type JsonObject,
  type LineProblem,
} from "./adapter-kit/json-lines.js";
export { PendingRequests, within, type RequestOptions } from "./adapter-kit/pending-requests.js";
export {
  JsonRpcClient,
  type JsonRpcClientOptions,
  type RpcError,
  type RpcMessage,
  type RpcRequestHandler,
} from "./adapter-kit/json-rpc-client.js";
export {
  finishedTurn,
  TurnSlot,
  INTERRUPT_GRACE_MS,
  type SlotAgent,
  type SlotTurn,
  type TurnParts,
  type TurnSlotOptions,
} from "./adapter-kit/turn-slot.js";
export { SlotSession } from "./adapter-kit/slot-session.js";
export {
  callOutcome,
  reportedCall,
  unfinishedCall,
  type AgentNames,
  type CallReading,
  type CallResult,
} from "./adapter-kit/agent-names.js";
export {
  launchable,
  startFailure,
  startOrUndo,
  tornDown,
  withoutSharedStderr,
  type StartFailureContext,
  type StartUndo,
} from "./adapter-kit/start-failure.js";
export {
  executableResolver,
  installedBin,
  isRunnableFile,
  nativeBinary,
  onPath,
  resolveAgentExecutable,
  runnable,
  type ExecutableLookup,
  type ExecutableSearch,
  type ExecutableSource,
  type FoundExecutable,
  type InstalledBinary,
  type NativeBinarySearch,
} from "./adapter-kit/executables.js";
export {
  compareVersions,
  parseVersion,
  readVersion,
  runIsolated,
  versionCapability,
  type AgentVersion,
  type IsolatedRun,
  type IsolatedRunOptions,
  type VersionProbe,
  type VersionRule,
} from "./adapter-kit/versions.js";
export { rangeCapability, testedRange, type TestedRange } from "./adapter-kit/tested-range.js";
export {
  agentNodeCandidates,
  agentNodeCacheEnvironment,
  agentNodeCapability,
  agentNodeRuntimeDir,
  AGENT_NODE_INSTALLER,
  AGENT_NODE_VERSION,
  findAgentNode,
  installedNodePackage,
  NODE_COMPILE_CACHE_VARIABLE,
  nodeVersion,
  runtimeNode,
  type AgentNodeLookup,
  type AgentNodeSearch,
  type AgentNodeSource,
} from "./adapter-kit/agent-node.js";
export {
  agentChecks,
  agentReadiness,
  agentReadinessKey,
  cachedVersionProbe,
  fileIdentity,
  probeCache,
  probeOnce,
  sessionCapabilities,
  worst,
  type AgentCheckSpec,
  type AgentChecks,
  type AgentReadinessSpec,
} from "./adapter-kit/capabilities.js";
export {
  WarmPool,
  type WarmLease,
  type WarmLeaseKind,
  type WarmPoolOptions,
} from "./adapter-kit/warm-pool.js";
export {
  announceWarmProcess,
  registerWarmPool,
  type WarmProcess,
} from "./adapter-kit/warm-registry.js";
export {
  filesUnder,
  holdProcess,
  killProcessGroup,
  stopSessionServers,
  warmStartKey,
  type SessionServer,
  type WarmStartSpec,
} from "./adapter-kit/warm-processes.js";
export {
  agentCredentials,
  providerCredentials,
  type CredentialRules,
} from "./adapter-kit/credentials.js";
export {
  elicitationRequest,
  toolDecision,
  type AgentElicitation,
  type ToolDecision,
} from "./adapter-kit/approvals.js";
export { optionReader, type OptionReader } from "./adapter-kit/harness-options.js";
export {
  checkPlaceholders,
  fillPlaceholders,
  ISOLATION_VARIABLES,
  readAgentEnv,
  readDialects,
  readStrings,
  shownValue,
} from "./adapter-kit/command-options.js";
export {
  identifyFlattened,
  listedTools,
  nameCollisions,
  parseToolName,
  serverPrefixOverlaps,
  type NameCollision,
  type PrefixOverlap,
  type ToolIdentity,
  type ToolNaming,
} from "./adapter-kit/tool-names.js";
export { assertDistinctToolNames, ToolNameCollision } from "./adapter-kit/tool-name-collision.js";
// What the parts above are built from, so an adapter needs no second import path.
export {
  ManagedProcess,
  childEnvironment,
  isAlive as isProcessAlive,
  type ProcessLaunch,
  type ExitInfo,
} from "./processes/managed-process.js";
export { describeExit, stderrSection } from "./errors.js";
// What a reported call's text or an option's name may need checking against.
export { isPolicyDenialMessage, POLICY_DENIED_CODE } from "./wire/channel-protocol.js";
export { isSecretName } from "./wire/redaction.js";
// The token usage an agent reports in its own events, added up per turn.
export { UsageTally } from "./adapter-kit/reported-usage.js";
// Waiting for the agent's own startup: re-checked on its messages, deadline, abort, exit.
export { startupWait, type StartupWait } from "./adapter-kit/startup-wait.js";
// An agent that tells its startup only when asked: the wait's changes, by polling.
export { polledChanges, type PolledChanges } from "./adapter-kit/polled-changes.js";
// One exchange answered on the agent's message stream: subscribe, send, take, exit, deadline.
export { messageExchange, type MessageExchange } from "./adapter-kit/message-exchange.js";
// The start of a warm session: a fresh folder for the homes, the plan, the pool's lease.
export { openWarmLease, type WarmOpening } from "./adapter-kit/warm-open.js";
// The start of a session on a process of its own: plan, spawn, client, start, undone on failure.
export {
  FAILED_START_GRACE_MS,
  openCold,
  type ColdOpening,
  type ColdPlan,
} from "./adapter-kit/cold-open.js";
// The user's own login, for a session with nothing else to authenticate with.
export { ownLogin } from "./adapter-kit/own-login.js";
// The agent's isolated homes and the user's login copied into them.
export {
  copyRegularFile,
  createHomes,
  homeEnvironment,
  regularFile,
  type FileCheck,
} from "./adapter-kit/agent-home.js";
// An isolated home in the layout most agents read (HOME, XDG folders, TMPDIR) and its environment.
export {
  createIsolatedHome,
  isolatedEnvironment,
  writeJsonFile,
  type IsolatedHome,
} from "./adapter-kit/isolated-home.js";
// A package that is an ECMAScript module only, loaded from a CommonJS adapter in any sandbox.
export { loadEsmModule } from "./adapter-kit/esm-module.js";
// A launch for a readiness probe that starts the agent as a session would, in a throw-away folder.
export { withProbeLaunch } from "./adapter-kit/probe-launch.js";
// An agent a test names by command: its command, arguments and variables read, found and filled.
export {
  fillAgentCommand,
  findAgentCommand,
  readAgentCommand,
  type AgentCommand,
} from "./adapter-kit/agent-command.js";
// An agent that authenticates with one key variable: its credentials, and the key for a provider.
export { keyCredentials, NO_KEY, providerKey } from "./adapter-kit/key-credentials.js";
// The executable, version and start checks at once, the start withdrawn when the version fails.
export {
  concurrentAgentChecks,
  type ConcurrentChecks,
  type ConcurrentCheckSpec,
} from "./adapter-kit/concurrent-checks.js";
// Parts first written for Pi: warm agents serving one session at a time, an agent's package
// facts and its start on the Node it needs, a client of a JSON-lines protocol of the agent's
// own, probes kept across runs.
export {
  WarmAgents,
  type WarmAgentClient,
  type WarmAgentLease,
  type WarmAgentsOptions,
} from "./adapter-kit/warm-agents.js";
export { readAgentPackage, type AgentPackage } from "./adapter-kit/agent-package.js";
export { onAgentNode, type AgentOnNode } from "./adapter-kit/agent-on-node.js";
export { helpMentions } from "./adapter-kit/help-flags.js";
export { JsonLinesClient, type JsonLinesClientOptions } from "./adapter-kit/json-lines-client.js";
export {
  probeAcrossRuns,
  readyCapability,
  type AcrossRuns,
} from "./adapter-kit/probe-across-runs.js";
export {
  isCapability,
  storedCapabilities,
  storedProbeKey,
  storedVersion,
  versionAcrossRuns,
} from "./adapter-kit/stored-probes.js";
// An MCP bridge inside an agent with no MCP client of its own: the adapter's side, the
// bridge's side (run in the agent's process by the extension an adapter ships), the names.
export {
  assignToolNames,
  bridgeConfig,
  bridgeFailures,
  hashedToolName,
  MAX_TOOL_NAME,
  offeredTools,
  plainToolName,
  readBridgeStatus,
  sanitizeName,
  type BridgeConfig,
  type BridgeServer,
  type BridgeServerStatus,
  type BridgeStatus,
} from "./adapter-kit/mcp-bridge.js";
export {
  connectBridge,
  takeBridgeConfig,
  type Bridge,
  type BridgedTool,
} from "./adapter-kit/mcp-bridge-agent.js";
