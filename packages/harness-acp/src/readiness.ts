import {
  agentReadinessKey,
  concurrentAgentChecks,
  errorMessage,
  fileIdentity,
  probeAcrossRuns,
  rangeCapability,
  sessionCapabilities,
  storedCapabilities,
  storedProbeKey,
  versionAcrossRuns,
  withProbeLaunch,
  worst,
  type ExecutableLookup,
} from "@jest-m3/core/adapter-kit";
import {
  readinessOf,
  type Capability,
  type HarnessLaunch,
  type ProbeCache,
  type Readiness,
  type ReadinessContext,
  type SelectionSpec,
} from "@jest-m3/core/harness";
import { AcpClient } from "./acp-client.js";
import { createAgentHome } from "./home.js";
import type { ResolvedCommonOptions } from "./options.js";
import { resolveExecutable, type AcpProfile, type FoundExecutable } from "./profiles/profile.js";
import {
  ACP_PROTOCOL_VERSION,
  CLIENT_INFO,
  type InitializeRequest,
  type InitializeResponse,
} from "./protocol.js";

/** `initialize` as the adapter sends it: protocol 1, no file system, no terminal. */
export const INITIALIZE_PARAMS: InitializeRequest = {
  protocolVersion: ACP_PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  clientInfo: { ...CLIENT_INFO },
};

/** What an agent's `initialize` answer means for sessions. */
export interface InitializeCheck {
  /** The protocol version and the rest of the answer. */
  readonly acp: Capability;
  /** Stdio MCP servers in `session/new` (every ACP agent must take them). */
  readonly mcpStdio: Capability;
  /** HTTP MCP servers in `session/new` (`mcpCapabilities.http`). */
  readonly mcpHttp: Capability;
}

/** An `initialize` check that could not be made, for `reason`. */
function notChecked(reason: string): InitializeCheck {
  const capability: Capability = { status: "unavailable", reason };
  return { acp: capability, mcpStdio: capability, mcpHttp: capability };
}

/** Reads what a session needs out of an `initialize` answer. */
export function checkInitialize(agent: string, answer: InitializeResponse): InitializeCheck {
  const acp: Capability =
    answer.protocolVersion === ACP_PROTOCOL_VERSION
      ? { status: "ready" }
      : {
          status: "unavailable",
          reason: `${agent} answered initialize with ACP protocol version ${String(answer.protocolVersion)}; this adapter speaks version ${ACP_PROTOCOL_VERSION}`,
        };
  const mcp = answer.agentCapabilities?.mcpCapabilities;
  return {
    acp,
    mcpStdio: acp.status === "ready" ? { status: "ready" } : acp,
    mcpHttp:
      mcp?.http === true
        ? { status: "ready" }
        : {
            status: "unsupported",
            reason: `${agent} does not advertise mcpCapabilities.http in initialize: sessions with HTTP MCP servers cannot start`,
          },
  };
}

/** Connects to a started agent and asks `initialize`: what its answer means for sessions. */
export async function initializeAgent(
  client: AcpClient,
  wait: { timeoutMs: number; signal?: AbortSignal },
): Promise<InitializeCheck> {
  await client.connect();
  return checkInitialize(client.name, await client.call("initialize", INITIALIZE_PARAMS, wait));
}

const initializeProbes = new Map<string, Promise<InitializeCheck>>();

/**
 * Starts the agent as a session would (the same settings, in a throw-away home, without
 * MCP servers: the kit's probe launch) and asks `initialize`.
 */
function checkAgent<O extends ResolvedCommonOptions>(
  profile: AcpProfile<O>,
  selection: SelectionSpec,
  options: O,
  executable: FoundExecutable,
  signal: AbortSignal,
): Promise<InitializeCheck> {
  const probe = async (launch: HarnessLaunch): Promise<InitializeCheck> => {
    const home = await createAgentHome(await launch.tempDir("agent-"));
    const plan = await profile.plan({ launch, home, options, executable });
    const child = launch.spawn({
      label: `${profile.agent} (readiness probe)`,
      command: executable.command,
      args: [...executable.prefix, ...plan.args],
      env: plan.env,
      cwd: launch.workspace,
    });
    const client = new AcpClient(profile.agent, child);
    try {
      return await initializeAgent(client, { timeoutMs: options.startupTimeoutMs, signal });
    } catch (error) {
      return notChecked(`${profile.agent} did not answer initialize: ${errorMessage(error)}`);
    } finally {
      await client.end(profile.stop(options), 1000);
    }
  };
  return withProbeLaunch(`m3-${profile.name}-probe-`, selection, probe, signal);
}

function probeAgent<O extends ResolvedCommonOptions>(
  profile: AcpProfile<O>,
  {
    selection,
    options,
    cache,
  }: { selection: SelectionSpec; options: O; cache: ProbeCache | undefined },
  executable: FoundExecutable,
  signal: AbortSignal,
): Promise<InitializeCheck> {
  // The binary's identity stands for its version (the version probe keys on it too). Across
  // runs only for a binary of a tested package: an agent given by command may be a script
  // whose answer changes without its interpreter changing. A failed start may be the
  // machine's moment, not the binary's: it is tried again next time.
  const runsOn = fileIdentity(executable.command);
  return probeAcrossRuns(
    initializeProbes,
    // The command is the runtime an agent runs on (a Node for a script), when it needs one.
    JSON.stringify([profile.name, fileIdentity(executable.path), runsOn, options]),
    {
      cache,
      key: profile.tested
        ? storedProbeKey("acp:initialize", executable.path, profile.name, options, runsOn)
        : undefined,
      read: (value) => storedCapabilities(value, ["acp", "mcpStdio", "mcpHttp"]),
    },
    (result) => result.acp.status === "ready",
    () => checkAgent(profile, selection, options, executable, signal),
  );
}

/**
 * What a profile's readiness depends on: the executable it resolves to, the credential
 * names, the provider, the model and the options.
 */
export function acpReadinessKey<O extends ResolvedCommonOptions>(
  profile: AcpProfile<O>,
): (context: ReadinessContext) => string {
  return (context) => {
    let executable: ExecutableLookup = { found: false, reason: "invalid options" };
    try {
      const options = profile.resolveOptions(context.selection.options);
      executable = profile.executable(context.selection, context.config, options);
    } catch {
      // Readiness itself reports the options.
    }
    const { provider, model } = context.selection;
    const reaches = provider ? [provider.wireApi, provider.baseUrl, provider.envKey ?? null] : null;
    const runtime = profile.runtimeKey?.(context.config) ?? null;
    return agentReadinessKey(executable, context, profile.name, reaches, model, runtime);
  };
}

/**
 * A profile's readiness, per capability: the executable exists; its version is in the
 * tested range (older: unavailable, newer: degraded); the agent answers `initialize` with
 * ACP version 1 (`acp`), which says whether it takes stdio and HTTP MCP servers
 * (`mcpStdio`, `mcpHttp`); there are credentials or a provider. `multiTurn` is ready only
 * when all of that holds. Probes run once per executable and version in a process; with the
 * runner's {@link ProbeCache}, the version and the `initialize` answer of a tested package's
 * binary are kept across runs until the binary changes (its path, size or modification time).
 *
 * @throws {@link InvalidAcpOptions} when the selection's options are malformed.
 */
export function acpReadiness<O extends ResolvedCommonOptions>(
  profile: AcpProfile<O>,
): (context: ReadinessContext) => Promise<Readiness> {
  return async ({ selection, config, credentialNames, probeCache }) => {
    const options = profile.resolveOptions(selection.options);
    const found = await resolveExecutable(profile, selection, config, options);
    const { lookup, runtime } = found;
    const probe = { selection, options, cache: probeCache };
    // Gemini CLI's first probe in a run took 2.2 s for --version and 2.6 s to answer
    // initialize: the two run at once, and the answer counts only when the version is usable.
    const checks = await concurrentAgentChecks({
      agent: profile.agent,
      found: lookup,
      run: found.executable,
      version: async (executable) => {
        const { tested, agent } = profile;
        if (!tested) {
          const reason = `${agent} given by command: no tested version range to check it against`;
          return { capability: { status: "degraded", reason }, text: null };
        }
        const read = await versionAcrossRuns(executable, probeCache, "acp");
        return {
          capability: rangeCapability(agent, read, tested),
          text: read.ok ? read.version.text : null,
        };
      },
      start: (executable, signal) => probeAgent(profile, probe, executable, signal),
      notStarted: notChecked,
    });
    const { executable, version, start: initialize } = checks;
    const { acp, mcpStdio, mcpHttp } = initialize;
    const { provider, model } = selection;
    const credentials = profile.credentials(provider, credentialNames, model, options);
    const node: Record<string, Capability> = runtime ? { node: runtime.node } : {};
    const harness = worst(executable, ...Object.values(node), version, acp, mcpStdio);
    const elicitation = profile.elicitation;
    const facts = { ...node, elicitation, executable, version, acp, mcpStdio, mcpHttp };
    const path = lookup.found ? lookup.path : null;
    return readinessOf(
      { name: profile.name, version: checks.versionText, executable: path },
      sessionCapabilities(harness, credentials, facts),
    );
  };
}
