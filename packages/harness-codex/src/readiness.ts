import { statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ManagedProcess,
  type Capabilities,
  type Capability,
  type ModelProvider,
  type Readiness,
  type ReadinessContext,
  type SelectionSpec,
  readinessOf,
} from "@jest-m3/core/harness";
import { AppServerClient } from "./app-server-client.js";
import { APP_SERVER_ARGS } from "./config.js";
import {
  compareVersions,
  parseCodexVersion,
  readCodexVersion,
  resolveCodexExecutable,
  TESTED_CODEX_VERSION,
  type CodexVersion,
  type ExecutableLookup,
  type VersionProbe,
} from "./executable.js";
import { findHostLogin, hostCodexHome, type HostLogin } from "./home.js";
import { resolveCodexOptions } from "./options.js";

/** The client identity the adapter gives Codex. */
export const CLIENT_INFO = { name: "jest-m3", title: "jest-m3", version: "0.1.0" } as const;

/** What readiness found out that `open()` needs again (the launch carries no configuration). */
export interface LaunchFacts {
  readonly executable: ExecutableLookup;
  readonly hostHome: string;
}

const versionProbes = new Map<string, Promise<VersionProbe>>();
const appServerProbes = new Map<string, Promise<Capability>>();

/** The executable and login home for a session, resolved from the kit's configuration. */
export function launchFacts(
  selection: SelectionSpec,
  config: Readonly<Record<string, string | undefined>>,
): LaunchFacts {
  return {
    executable: resolveCodexExecutable(selection, config),
    hostHome: hostCodexHome(config),
  };
}

function probeVersion(executable: string): Promise<VersionProbe> {
  let identity = executable;
  try {
    const stat = statSync(executable);
    identity += `\0${stat.mtimeMs}\0${stat.size}`;
  } catch {
    // Reported by the probe itself.
  }
  let probe = versionProbes.get(identity);
  if (!probe) {
    probe = readCodexVersion(executable).catch((error: unknown): VersionProbe => ({
      ok: false,
      reason: `\`${executable} --version\` could not run: ${error instanceof Error ? error.message : String(error)}`,
    }));
    versionProbes.set(identity, probe);
    // Only a version is worth keeping; a failure is checked again next time.
    void probe.then((result) => {
      if (!result.ok) versionProbes.delete(identity);
    });
  }
  return probe;
}

/** Starts `codex app-server` in a throw-away home and checks that it answers `initialize`. */
async function checkAppServer(executable: string, timeoutMs: number): Promise<Capability> {
  const home = await mkdtemp(join(tmpdir(), "m3-codex-probe-"));
  const env: Record<string, string> = { CODEX_HOME: home, HOME: home };
  if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
  const child = new ManagedProcess({
    label: "codex app-server (readiness probe)",
    command: executable,
    args: [...APP_SERVER_ARGS],
    env,
    cwd: home,
  });
  const client = new AppServerClient(child);
  try {
    await client.request(
      "initialize",
      { clientInfo: CLIENT_INFO, capabilities: { experimentalApi: true } },
      { timeoutMs },
    );
    client.notify("initialized");
    return { status: "ready" };
  } catch (error) {
    return {
      status: "unavailable",
      reason: `codex app-server did not answer initialize: ${error instanceof Error ? error.message : String(error)}`,
    };
  } finally {
    await client.close(1000);
    await rm(home, { recursive: true, force: true });
  }
}

function probeAppServer(
  executable: string,
  version: CodexVersion,
  timeoutMs: number,
): Promise<Capability> {
  const key = `${executable}\0${version.text}`;
  let probe = appServerProbes.get(key);
  if (!probe) {
    probe = checkAppServer(executable, timeoutMs);
    appServerProbes.set(key, probe);
    // A failed start may be the machine's moment, not the binary's: try again next time.
    void probe.then((result) => {
      if (result.status !== "ready") appServerProbes.delete(key);
    });
  }
  return probe;
}

/**
 * Whether the session has something to authenticate with: a provider (with its key
 * variable mapped, when it needs one), else the user's Codex login.
 */
export function credentialsCapability(
  provider: ModelProvider | undefined,
  credentialNames: readonly string[],
  login: HostLogin,
): Capability {
  if (provider) {
    if (provider.envKey !== undefined && !credentialNames.includes(provider.envKey)) {
      return {
        status: "unavailable",
        reason: `provider "${provider.name}" reads its key from ${provider.envKey}, which is not mapped; add credentialEnv: { ${provider.envKey}: "<PARENT_VARIABLE>" }`,
      };
    }
    return { status: "ready" };
  }
  if (credentialNames.length > 0) {
    return {
      status: "unavailable",
      reason:
        `credentials (${credentialNames.join(", ")}) were given without a provider, but codex app-server ` +
        `reads no API key from its environment for the built-in OpenAI provider. Give a provider that ` +
        `names the key, e.g. provider: { name: "openai-key", baseUrl: "https://api.openai.com/v1", ` +
        `wireApi: "responses", envKey: "${credentialNames[0]}" }, or drop credentialEnv to use your Codex login`,
    };
  }
  return login.usable
    ? { status: "ready" }
    : {
        status: "unavailable",
        reason: `no provider and no credentials given, and ${login.reason}`,
      };
}

const RANK: Readonly<Record<Capability["status"], number>> = {
  ready: 0,
  degraded: 1,
  unsupported: 2,
  unavailable: 3,
};

function worst(...capabilities: Capability[]): Capability {
  const rank = Math.max(...capabilities.map((capability) => RANK[capability.status]));
  if (rank === 0) return { status: "ready" };
  const status = capabilities.find((capability) => RANK[capability.status] === rank)?.status;
  const reasons = capabilities
    .filter((capability) => capability.status !== "ready" && capability.reason)
    .map((capability) => capability.reason);
  return { status: status ?? "unavailable", reason: [...new Set(reasons)].join("; ") };
}

function versionCapability(probe: VersionProbe): Capability {
  if (!probe.ok) return { status: "unavailable", reason: probe.reason };
  const tested = parseCodexVersion(TESTED_CODEX_VERSION) as CodexVersion;
  const order = compareVersions(probe.version, tested);
  if (order < 0) {
    return {
      status: "unavailable",
      reason: `Codex ${probe.version.text} is older than ${TESTED_CODEX_VERSION}, the version this adapter is tested with; install @openai/codex@${TESTED_CODEX_VERSION}`,
    };
  }
  if (order > 0) {
    return {
      status: "degraded",
      reason: `Codex ${probe.version.text} is newer than ${TESTED_CODEX_VERSION}, the version this adapter is tested with; it may work (the adapter's protocol contract test tells), but it is untested`,
    };
  }
  return { status: "ready" };
}

/**
 * What Codex's readiness depends on: the executable it resolves to, the login home, the
 * credential names, the provider and the adapter options (not the model).
 */
export function codexReadinessKey(context: ReadinessContext): string {
  const { executable, hostHome } = launchFacts(context.selection, context.config);
  const provider = context.selection.provider;
  return JSON.stringify([
    executable.found ? executable.path : `missing:${executable.reason}`,
    hostHome,
    [...context.credentialNames].sort(),
    provider ? [provider.baseUrl, provider.envKey ?? null] : null,
    context.selection.options,
  ]);
}

/**
 * The Codex harness's readiness, per capability: the executable exists and its version
 * parses and is the tested one (older: unavailable, newer: degraded), the app-server
 * answers `initialize`, and there are credentials or a provider. `multiTurn` is ready only
 * when all of that holds. Probes run once per executable and version in a process.
 */
export async function codexReadiness(context: ReadinessContext): Promise<Readiness> {
  const { selection, config, credentialNames } = context;
  const options = resolveCodexOptions(selection.options);
  const { executable, hostHome } = launchFacts(selection, config);

  let executableCapability: Capability;
  let version: Capability;
  let appServer: Capability;
  let versionText: string | null = null;
  if (!executable.found) {
    executableCapability = { status: "unavailable", reason: executable.reason };
    version = { status: "unavailable", reason: "no Codex executable to ask for its version" };
    appServer = { status: "unavailable", reason: "no Codex executable to start" };
  } else {
    executableCapability = { status: "ready" };
    const probe = await probeVersion(executable.path);
    version = versionCapability(probe);
    if (probe.ok) versionText = probe.version.text;
    appServer =
      probe.ok && version.status !== "unavailable"
        ? await probeAppServer(executable.path, probe.version, options.startupTimeoutMs)
        : { status: "unavailable", reason: "not started: the version check failed" };
  }
  const credentials = credentialsCapability(
    selection.provider,
    credentialNames,
    findHostLogin(hostHome),
  );
  const harness = worst(executableCapability, version, appServer);
  const capabilities: Capabilities = {
    multiTurn: worst(harness, credentials),
    toolPolicy: harness,
    wireEvidence: harness,
    reportedEvidence: harness,
    cancellation: harness,
    approvals: harness,
    // Codex 0.171 passes an MCP server's elicitation/create on as
    // mcpServer/elicitation/request (form and URL mode); the session's plan answers it.
    elicitation: harness,
    credentials,
    executable: executableCapability,
    version,
    appServer,
  };
  return readinessOf(
    {
      name: "codex",
      version: versionText,
      executable: executable.found ? executable.path : null,
    },
    capabilities,
  );
}
