import { statSync } from "node:fs";
import type {
  Capabilities,
  Capability,
  ModelProvider,
  Readiness,
  ReadinessContext,
  SelectionSpec,
} from "@jest-m3/core/harness";
import {
  compareVersions,
  parseClaudeVersion,
  readClaudeVersion,
  resolveClaudeExecutable,
  runIsolated,
  TESTED_CLAUDE_CODE_VERSION,
  type ClaudeCodeVersion,
  type ExecutableLookup,
  type VersionProbe,
} from "./executable.js";
import { findHostLogin, hostClaudeConfig, KEY_VARIABLES, type HostLogin } from "./home.js";
import { resolveClaudeCodeOptions } from "./options.js";
import { PROTOCOL_SURFACE } from "./protocol.js";

/** The harness's name, as selections give it. */
export const HARNESS_NAME = "claude-code";

/** What readiness found out that `open()` needs again (the launch carries no configuration). */
export interface LaunchFacts {
  readonly executable: ExecutableLookup;
  readonly login: HostLogin;
}

const versionProbes = new Map<string, Promise<VersionProbe>>();
const cliProbes = new Map<string, Promise<Capability>>();

/** The executable and the user's login for a session, from the kit's configuration. */
export function launchFacts(
  selection: SelectionSpec,
  config: Readonly<Record<string, string | undefined>>,
): LaunchFacts {
  return {
    executable: resolveClaudeExecutable(selection, config),
    login: findHostLogin(config),
  };
}

function identity(executable: string): string {
  try {
    const stat = statSync(executable);
    return `${executable}\0${stat.mtimeMs}\0${stat.size}`;
  } catch {
    return executable;
  }
}

function once<T>(
  cache: Map<string, Promise<T>>,
  key: string,
  probe: () => Promise<T>,
  keep: (result: T) => boolean,
): Promise<T> {
  let running = cache.get(key);
  if (!running) {
    running = probe();
    cache.set(key, running);
    // Only a success is worth keeping; a failure is checked again next time.
    void running.then((result) => {
      if (!keep(result)) cache.delete(key);
    });
  }
  return running;
}

function probeVersion(executable: string): Promise<VersionProbe> {
  return once(
    versionProbes,
    identity(executable),
    () =>
      readClaudeVersion(executable).catch((error: unknown): VersionProbe => ({
        ok: false,
        reason: `\`${executable} --version\` could not run: ${error instanceof Error ? error.message : String(error)}`,
      })),
    (result) => result.ok,
  );
}

/**
 * Runs `claude --help` in an isolated home and checks it names the stream-json mode and
 * the flags the adapter passes (the hidden `--permission-prompt-tool` is left to the
 * contract test).
 */
async function checkCli(executable: string): Promise<Capability> {
  const run = await runIsolated(executable, ["--help"]);
  if (!run.ok) return { status: "unavailable", reason: run.reason };
  const missing = PROTOCOL_SURFACE.flags.filter(
    (flag) => flag !== "--permission-prompt-tool" && !run.output.includes(flag),
  );
  if (!run.output.includes("stream-json")) missing.unshift("stream-json" as never);
  return missing.length === 0
    ? { status: "ready" }
    : {
        status: "unavailable",
        reason: `\`${executable} --help\` does not mention ${missing.join(", ")}, which the adapter relies on`,
      };
}

function probeCli(executable: string, version: ClaudeCodeVersion): Promise<Capability> {
  return once(
    cliProbes,
    `${identity(executable)}\0${version.text}`,
    () => checkCli(executable),
    (result) => result.status === "ready",
  );
}

/**
 * Whether the session has something to authenticate with: a provider (with its key
 * variable mapped, when it names one), else a mapped Anthropic key or token, else the
 * user's Claude Code login.
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
    if (credentialNames.some((name) => KEY_VARIABLES.includes(name))) return { status: "ready" };
    return {
      status: "unavailable",
      reason:
        `credentials (${credentialNames.join(", ")}) were given without a provider, but Claude Code reads ` +
        `its key from ${KEY_VARIABLES.join(", ")}; map one of those, e.g. credentialEnv: { ANTHROPIC_API_KEY: "${credentialNames[0]}" }`,
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
  const tested = parseClaudeVersion(TESTED_CLAUDE_CODE_VERSION) as ClaudeCodeVersion;
  const order = compareVersions(probe.version, tested);
  if (order < 0) {
    return {
      status: "unavailable",
      reason: `Claude Code ${probe.version.text} is older than ${TESTED_CLAUDE_CODE_VERSION}, the version this adapter is tested with; install @anthropic-ai/claude-code@${TESTED_CLAUDE_CODE_VERSION}`,
    };
  }
  if (order > 0) {
    return {
      status: "degraded",
      reason: `Claude Code ${probe.version.text} is newer than ${TESTED_CLAUDE_CODE_VERSION}, the version this adapter is tested with; it may work (the adapter's contract test tells), but it is untested`,
    };
  }
  return { status: "ready" };
}

/**
 * What Claude Code's readiness depends on: the executable it resolves to, the login, the
 * credential names, the provider and the adapter options (not the model).
 */
export function claudeCodeReadinessKey(context: ReadinessContext): string {
  const { executable } = launchFacts(context.selection, context.config);
  const provider = context.selection.provider;
  return JSON.stringify([
    executable.found ? executable.path : `missing:${executable.reason}`,
    hostClaudeConfig(context.config),
    [...context.credentialNames].sort(),
    provider ? [provider.baseUrl, provider.wireApi, provider.envKey ?? null] : null,
    context.selection.options,
  ]);
}

/**
 * Claude Code's readiness, per capability: the executable exists, its version parses and is
 * the tested one (older: unavailable, newer: degraded), it starts in an isolated home and
 * its `--help` names the stream-json mode and the flags the adapter passes, and there are
 * credentials or a provider speaking `anthropic-messages`. Probes run once per executable
 * and version in a process.
 */
export async function claudeCodeReadiness(context: ReadinessContext): Promise<Readiness> {
  const { selection, config, credentialNames } = context;
  resolveClaudeCodeOptions(selection.options);
  const { executable, login } = launchFacts(selection, config);

  let executableCapability: Capability;
  let version: Capability;
  let cli: Capability;
  let versionText: string | null = null;
  if (!executable.found) {
    executableCapability = { status: "unavailable", reason: executable.reason };
    version = { status: "unavailable", reason: "no Claude Code executable to ask for its version" };
    cli = { status: "unavailable", reason: "no Claude Code executable to start" };
  } else {
    executableCapability = { status: "ready" };
    const probe = await probeVersion(executable.path);
    version = versionCapability(probe);
    if (probe.ok) versionText = probe.version.text;
    cli =
      probe.ok && version.status !== "unavailable"
        ? await probeCli(executable.path, probe.version)
        : { status: "unavailable", reason: "not checked: the version check failed" };
  }
  const provider = selection.provider;
  const dialect: Capability =
    provider === undefined || provider.wireApi === "anthropic-messages"
      ? { status: "ready" }
      : {
          status: "unavailable",
          reason: `provider "${provider.name}" speaks ${provider.wireApi}; Claude Code speaks only anthropic-messages`,
        };
  const credentials = worst(credentialsCapability(provider, credentialNames, login), dialect);
  const harness = worst(executableCapability, version, cli);
  const capabilities: Capabilities = {
    multiTurn: worst(harness, credentials),
    toolPolicy: harness,
    wireEvidence: harness,
    reportedEvidence: harness,
    cancellation: harness,
    approvals: harness,
    // Claude Code 2.1.332 in stream-json mode asks its SDK host (this adapter) for an MCP
    // server's elicitation with a control request; the session's plan answers it.
    elicitation: harness,
    credentials,
    executable: executableCapability,
    version,
    cli,
  };
  return {
    ready: Object.values(capabilities).every(
      (capability) => capability.status === "ready" || capability.status === "degraded",
    ),
    harness: {
      name: HARNESS_NAME,
      version: versionText,
      executable: executable.found ? executable.path : null,
    },
    capabilities,
  };
}
