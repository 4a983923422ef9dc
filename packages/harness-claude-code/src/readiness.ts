import {
  agentReadiness,
  agentReadinessKey,
  cachedVersionProbe,
  fileIdentity,
  helpMentions,
  probeCache,
  worst,
} from "@jest-m3/core/adapter-kit";
import type { Capability, Readiness, ReadinessContext } from "@jest-m3/core/harness";
import { HARNESS_NAME } from "./errors.js";
import {
  PROBE_RUN,
  readClaudeVersion,
  resolveClaudeExecutable,
  TESTED_CLAUDE_CODE_VERSION,
} from "./executable.js";
import { credentialsCapability, findHostLogin, hostClaudeConfig } from "./home.js";
import { resolveClaudeCodeOptions } from "./options.js";
import { PROTOCOL_SURFACE } from "./protocol.js";

/** `claude --version`, once per binary. */
const probeVersion = cachedVersionProbe((executable) => readClaudeVersion(executable.path));
/** The `--help` check, once per binary and version while it succeeds. */
const cliProbe = probeCache<Capability>((result) => result.status === "ready");

/**
 * What `claude --help` must name: the stream-json mode and the flags the adapter passes (the
 * hidden `--permission-prompt-tool` is left to the contract test).
 */
const HELP_WORDS = [
  "stream-json",
  ...PROTOCOL_SURFACE.flags.filter((flag) => flag !== "--permission-prompt-tool"),
];

/**
 * What Claude Code's readiness depends on: the executable it resolves to, the login, the
 * credential names, the provider and the adapter options (not the model).
 */
export function claudeCodeReadinessKey(context: ReadinessContext): string {
  const executable = resolveClaudeExecutable(context.selection, context.config);
  const provider = context.selection.provider;
  const providerFacts = provider
    ? [provider.baseUrl, provider.wireApi, provider.envKey ?? null]
    : null;
  return agentReadinessKey(executable, context, hostClaudeConfig(context.config), providerFacts);
}

/**
 * Claude Code's readiness, per capability: the executable exists, its version parses and is
 * the tested one (older: unavailable, newer: degraded), it starts in an isolated home and
 * its `--help` names the stream-json mode and the flags the adapter passes, and there are
 * credentials or a provider speaking `anthropic-messages`. Probes run once per executable
 * and version in a process. Claude Code 2.1.332 in stream-json mode asks its SDK host (this
 * adapter) for an MCP server's elicitation with a control request; the session's plan
 * answers it.
 */
export async function claudeCodeReadiness(context: ReadinessContext): Promise<Readiness> {
  const { selection, config, credentialNames } = context;
  resolveClaudeCodeOptions(selection.options);
  const provider = selection.provider;
  const dialect: Capability =
    provider === undefined || provider.wireApi === "anthropic-messages"
      ? { status: "ready" }
      : {
          status: "unavailable",
          reason: `provider "${provider.name}" speaks ${provider.wireApi}; Claude Code speaks only anthropic-messages`,
        };
  return agentReadiness({
    harness: HARNESS_NAME,
    agent: "Claude Code",
    executable: resolveClaudeExecutable(selection, config),
    version: {
      product: "Claude Code",
      tested: TESTED_CLAUDE_CODE_VERSION,
      install: `@anthropic-ai/claude-code@${TESTED_CLAUDE_CODE_VERSION}`,
    },
    probeVersion,
    start: {
      name: "cli",
      skipped: "not checked: the version check failed",
      probe: (found, version) =>
        cliProbe(`${fileIdentity(found.path)}\0${version.text}`, () =>
          helpMentions(found, HELP_WORDS, PROBE_RUN),
        ),
    },
    credentials: worst(
      credentialsCapability(provider, credentialNames, findHostLogin(config)),
      dialect,
    ),
  });
}
