// What opening a session and readiness both need to know: the executable and the user's
// login the kit's configuration gives, and whether there is something to authenticate with.
import { agentCredentials, type ExecutableLookup } from "@jest-m3/core/adapter-kit";
import type { Capability, ModelProvider, SelectionSpec } from "@jest-m3/core/harness";
import { resolveClaudeExecutable } from "./executable.js";
import { findHostLogin, KEY_VARIABLES, type HostLogin } from "./home.js";

/** The harness's name, as selections give it. */
export const HARNESS_NAME = "claude-code";

/** What readiness found out that `open()` needs again (the launch carries no configuration). */
export interface LaunchFacts {
  readonly executable: ExecutableLookup;
  readonly login: HostLogin;
}

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
  return agentCredentials(provider, credentialNames, {
    named: (names) =>
      names.some((name) => KEY_VARIABLES.includes(name))
        ? { status: "ready" }
        : {
            status: "unavailable",
            reason:
              `credentials (${names.join(", ")}) were given without a provider, but Claude Code reads ` +
              `its key from ${KEY_VARIABLES.join(", ")}; map one of those, e.g. credentialEnv: { ANTHROPIC_API_KEY: "${names[0]}" }`,
          },
    login,
  });
}
