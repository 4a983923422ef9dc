import {
  agentCredentials,
  agentReadiness,
  agentReadinessKey,
  cachedVersionProbe,
  errorMessage,
  probeCache,
  readVersion,
  withProbeLaunch,
  type CredentialRules,
} from "@jest-m3/core/adapter-kit";
import type { Capability, Readiness, ReadinessContext, SelectionSpec } from "@jest-m3/core/harness";
import { AppServerClient } from "./app-server-client.js";
import { APP_SERVER_ARGS } from "./config.js";
import { resolveCodexExecutable, TESTED_CODEX_VERSION } from "./executable.js";
import { findHostLogin, hostCodexHome, type HostLogin } from "./home.js";
import { resolveCodexOptions } from "./options.js";

/**
 * `codex --version`, once per binary, in a fresh, throw-away CODEX_HOME and HOME (Codex
 * writes into its home even for `--version`).
 */
const probeVersion = cachedVersionProbe((executable) =>
  readVersion(executable, 15_000, { env: (home) => ({ CODEX_HOME: home, HOME: home }) }),
);
/** The app-server check, once per binary and version while it succeeds. */
const appServerProbe = probeCache<Capability>((result) => result.status === "ready");

/** Starts `codex app-server` in a throw-away home and checks that it answers `initialize`. */
function checkAppServer(
  executable: string,
  timeoutMs: number,
  selection: SelectionSpec,
): Promise<Capability> {
  return withProbeLaunch("m3-codex-probe-", selection, async (launch) => {
    const home = await launch.tempDir("home-");
    const env: Record<string, string> = { CODEX_HOME: home, HOME: home };
    if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
    const args = [...APP_SERVER_ARGS];
    const label = "codex app-server (readiness probe)";
    const client = new AppServerClient(
      launch.spawn({ label, command: executable, args, env, cwd: home }),
    );
    try {
      await client.initialize({ timeoutMs });
      return { status: "ready" };
    } catch (error) {
      const reason = `codex app-server did not answer initialize: ${errorMessage(error)}`;
      return { status: "unavailable", reason };
    } finally {
      await client.close(1000);
    }
  });
}

/**
 * What Codex authenticates with, for the kit's `agentCredentials`: a provider (with its key
 * variable mapped, when it needs one), else the user's Codex login; credentials without a
 * provider are refused.
 */
export function credentialRules(login: HostLogin): CredentialRules {
  return {
    named: (names) => ({
      status: "unavailable",
      reason:
        `credentials (${names.join(", ")}) were given without a provider, but codex app-server ` +
        `reads no API key from its environment for the built-in OpenAI provider. Give a provider that ` +
        `names the key, e.g. provider: { name: "openai-key", baseUrl: "https://api.openai.com/v1", ` +
        `wireApi: "responses", envKey: "${names[0]}" }, or drop credentialEnv to use your Codex login`,
    }),
    login,
  };
}

/**
 * What Codex's readiness depends on: the executable it resolves to, the login home, the
 * credential names, the provider and the adapter options (not the model).
 */
export function codexReadinessKey(context: ReadinessContext): string {
  const { selection, config } = context;
  const provider = selection.provider;
  const providerFacts = provider ? [provider.baseUrl, provider.envKey ?? null] : null;
  const executable = resolveCodexExecutable(selection, config);
  return agentReadinessKey(executable, context, hostCodexHome(config), providerFacts);
}

/**
 * The Codex harness's readiness, per capability: the executable exists and its version
 * parses and is the tested one (older: unavailable, newer: degraded), the app-server
 * answers `initialize`, and there are credentials or a provider. `multiTurn` is ready only
 * when all of that holds. Probes run once per executable and version in a process. Codex
 * 0.171 passes an MCP server's elicitation/create on as mcpServer/elicitation/request (form
 * and URL mode); the session's plan answers it.
 */
export async function codexReadiness(context: ReadinessContext): Promise<Readiness> {
  const { selection, config, credentialNames } = context;
  const options = resolveCodexOptions(selection.options);
  return agentReadiness({
    harness: "codex",
    agent: "Codex",
    executable: resolveCodexExecutable(selection, config),
    version: {
      product: "Codex",
      tested: TESTED_CODEX_VERSION,
      install: `@openai/codex@${TESTED_CODEX_VERSION}`,
      checkedBy: "the adapter's protocol contract test",
    },
    probeVersion,
    start: {
      name: "appServer",
      // A failed start may be the machine's moment, not the binary's: tried again next time.
      probe: (found, version) =>
        appServerProbe(`${found.path}\0${version.text}`, () =>
          checkAppServer(found.path, options.startupTimeoutMs, selection),
        ),
    },
    credentials: agentCredentials(
      selection.provider,
      credentialNames,
      credentialRules(findHostLogin(hostCodexHome(config))),
    ),
  });
}
