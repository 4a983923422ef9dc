import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  agentCredentials,
  errorMessage,
  fileIdentity,
  helpMentions,
  ManagedProcess,
  probeAcrossRuns,
  readyCapability,
  sessionCapabilities,
  versionCapability,
  worst,
  type ExecutableLookup,
  type FoundExecutable,
  type VersionProbe,
} from "@jest-m3/core/adapter-kit";
import {
  readinessOf,
  type Capability,
  type ProbeCache,
  type Readiness,
  type ReadinessContext,
  type SelectionSpec,
} from "@jest-m3/core/harness";
import { ISOLATION_FLAGS, PI_APIS } from "./config.js";
import {
  nodeCandidates,
  piOnNode,
  piPackageFacts,
  PI_PACKAGE,
  resolvePiExecutable,
  TESTED_PI_VERSION,
  type PiLookup,
} from "./executable.js";
import { resolvePiOptions } from "./options.js";
import { PROTOCOL_SURFACE, type PiState } from "./protocol.js";
import { PiRpcClient } from "./rpc-client.js";

/** The harness's name, as selections give it. */
export const HARNESS_NAME = "pi";

/** How long a readiness probe (`--help`, a start up to `get_state`) may take. */
const PROBE_TIMEOUT_MS = 30_000;

/** What readiness found out that `open()` needs again (the launch carries no configuration). */
export interface LaunchFacts {
  readonly pi: PiLookup;
  /** How to start Pi: its script on the Node found, or a native `pi` itself. */
  readonly start: ExecutableLookup;
  readonly node: Capability;
}

/** Pi and the Node to run it on, for a selection and the kit's configuration. */
export async function launchFacts(
  selection: SelectionSpec,
  config: Readonly<Record<string, string | undefined>>,
): Promise<LaunchFacts> {
  const options = resolvePiOptions(selection.options);
  const pi = resolvePiExecutable(selection, config);
  if (!pi.found) {
    return { pi, start: pi, node: { status: "unavailable", reason: "no Pi executable to run" } };
  }
  const { executable, node } = await piOnNode(pi, options.node, config);
  return { pi, start: executable, node };
}

function probeEnv(home: string): Record<string, string> {
  return {
    ...(process.env.PATH !== undefined ? { PATH: process.env.PATH } : {}),
    HOME: home,
    TMPDIR: home,
    PI_CODING_AGENT_DIR: join(home, "agent"),
    PI_OFFLINE: "1",
    PI_TELEMETRY: "0",
    PI_SKIP_VERSION_CHECK: "1",
    NO_COLOR: "1",
  };
}

/**
 * Starts Pi in RPC mode in a throw-away home (no extension, no model, no tools) and asks
 * `get_state`: ready when it answers with a session id, the way every session starts.
 */
async function probeRpc(pi: FoundExecutable, home: string): Promise<Capability> {
  const child = new ManagedProcess({
    label: "pi (readiness probe)",
    command: pi.command,
    args: [...pi.prefix, "--mode", "rpc", ...ISOLATION_FLAGS, "--no-builtin-tools"],
    env: probeEnv(home),
    cwd: home,
  });
  const client = new PiRpcClient(child);
  try {
    await child.spawned;
    const state = (await client.command(
      "get_state",
      {},
      { timeoutMs: PROBE_TIMEOUT_MS },
    )) as unknown as PiState | undefined;
    if (typeof state?.sessionId === "string") return { status: "ready" };
    const said = JSON.stringify(state ?? null).slice(0, 300);
    return { status: "unavailable", reason: `Pi answered get_state without a session id: ${said}` };
  } catch (error) {
    return { status: "unavailable", reason: `Pi did not answer get_state: ${errorMessage(error)}` };
  } finally {
    await client.close(3000);
  }
}

/**
 * Pi's start check: `pi --help` names every flag the adapter passes, and Pi started in RPC
 * mode answers `get_state`. Run once per Pi and Node in a process, and kept in the run's
 * probe cache when it succeeds (the answer depends only on the two binaries).
 */
async function checkStart(pi: FoundExecutable): Promise<Capability> {
  const home = await mkdtemp(join(tmpdir(), "m3-pi-probe-"));
  try {
    const help = { env: probeEnv, timeoutMs: PROBE_TIMEOUT_MS };
    const [flags, rpc] = await Promise.all([
      helpMentions(pi, PROTOCOL_SURFACE.flags, help),
      probeRpc(pi, home),
    ]);
    return flags.status === "ready" ? rpc : flags;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

const startProbes = new Map<string, Promise<Capability>>();

function probeStart(pi: FoundExecutable, cache: ProbeCache | undefined): Promise<Capability> {
  const key = JSON.stringify([
    "pi:start",
    fileIdentity(pi.command),
    ...pi.prefix.map(fileIdentity),
  ]);
  return probeAcrossRuns(
    startProbes,
    key,
    { cache, key, read: readyCapability },
    (result) => result.status === "ready",
    () => checkStart(pi),
  );
}

function versionOf(facts: LaunchFacts): VersionProbe {
  if (!facts.pi.found) return { ok: false, reason: facts.pi.reason };
  const version = piPackageFacts(facts.pi.path).version;
  return version
    ? { ok: true, version, output: version.text }
    : {
        ok: false,
        reason: `no ${PI_PACKAGE} package.json next to ${facts.pi.path} to read Pi's version from`,
      };
}

/**
 * Whether the session has something to authenticate with: a provider speaking a dialect
 * Pi is given (with its key variable mapped, when it names one), else at least one mapped
 * credential for Pi's own providers (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, ...).
 */
export function credentialsCapability(
  provider: SelectionSpec["provider"],
  credentialNames: readonly string[],
): Capability {
  if (provider && PI_APIS[provider.wireApi] === undefined) {
    return {
      status: "unavailable",
      reason: `provider "${provider.name}" speaks ${provider.wireApi}; this adapter gives Pi ${Object.keys(PI_APIS).join(", ")}`,
    };
  }
  return agentCredentials(provider, credentialNames, {
    named: () => ({ status: "ready" }),
    login: {
      usable: false,
      reason:
        'Pi has no login here: give the selection a provider (such as the scripted model\'s), or map the key Pi\'s provider reads, e.g. credentialEnv: { ANTHROPIC_API_KEY: "<PARENT_VARIABLE>" } with models: ["anthropic/<model>"]',
    },
  });
}

/**
 * What Pi's readiness depends on: Pi and the Node it runs on, the credential names, the
 * provider and the adapter options (not the model).
 */
export function piReadinessKey(context: ReadinessContext): string {
  const pi = resolvePiExecutable(context.selection, context.config);
  const provider = context.selection.provider;
  return JSON.stringify([
    pi.found ? fileIdentity(pi.path) : `missing:${pi.reason}`,
    nodeCandidates(context.config).map(fileIdentity),
    [...context.credentialNames].sort(),
    provider ? [provider.baseUrl, provider.wireApi, provider.envKey ?? null] : null,
    context.selection.options,
  ]);
}

/**
 * Pi's readiness, per capability: the executable is found, its version (from its package)
 * is the tested one (older: unavailable, newer: degraded), a Node new enough for it is found
 * (and named), its `--help` names the flags the adapter passes and it answers `get_state`
 * in RPC mode, and there is a provider in a dialect Pi is given or credentials.
 */
export async function piReadiness(context: ReadinessContext): Promise<Readiness> {
  const { selection, config, credentialNames, probeCache } = context;
  const facts = await launchFacts(selection, config);
  const executable: Capability = facts.pi.found
    ? { status: "ready" }
    : { status: "unavailable", reason: facts.pi.reason };
  const version = facts.pi.found
    ? versionCapability(versionOf(facts), {
        product: "Pi",
        tested: TESTED_PI_VERSION,
        install: `${PI_PACKAGE}@${TESTED_PI_VERSION}`,
      })
    : { status: "unavailable" as const, reason: "no Pi executable to ask for its version" };
  const { node, start } = facts;
  const rpc: Capability = !start.found
    ? { status: "unavailable", reason: `not started: ${start.reason}` }
    : version.status === "unavailable"
      ? { status: "unavailable", reason: "not started: the version check failed" }
      : await probeStart(start, probeCache);
  const credentials = credentialsCapability(selection.provider, credentialNames);
  const harness = worst(executable, version, node, rpc);
  const capabilities = sessionCapabilities(harness, credentials, {
    // Pi has no approval step and no elicitation path for MCP servers.
    approvals: {
      status: harness.status,
      reason: `Pi has no approval step: the allow-list decides which tools the bridge offers, and the wire capture refuses the rest${harness.reason ? `; ${harness.reason}` : ""}`,
    },
    elicitation: {
      status: "unsupported",
      reason: "Pi's MCP bridge does not answer elicitation requests",
    },
    executable,
    version,
    node,
    rpc,
  });
  return readinessOf(
    {
      name: HARNESS_NAME,
      version: facts.pi.found ? (piPackageFacts(facts.pi.path).version?.text ?? null) : null,
      executable: facts.pi.found ? facts.pi.path : null,
    },
    capabilities,
  );
}
