// What opening a session and readiness both need to know: the executable and the login
// home the kit's configuration gives, and whether there is something to authenticate with.
import { agentCredentials, type ExecutableLookup } from "@jest-m3/core/adapter-kit";
import type { Capability, ModelProvider, SelectionSpec } from "@jest-m3/core/harness";
import { resolveCodexExecutable } from "./executable.js";
import { hostCodexHome, type HostLogin } from "./home.js";

/** What readiness found out that `open()` needs again (the launch carries no configuration). */
export interface LaunchFacts {
  readonly executable: ExecutableLookup;
  readonly hostHome: string;
}

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

/**
 * Whether the session has something to authenticate with: a provider (with its key
 * variable mapped, when it needs one), else the user's Codex login.
 */
export function credentialsCapability(
  provider: ModelProvider | undefined,
  credentialNames: readonly string[],
  login: HostLogin,
): Capability {
  return agentCredentials(provider, credentialNames, {
    named: (names) => ({
      status: "unavailable",
      reason:
        `credentials (${names.join(", ")}) were given without a provider, but codex app-server ` +
        `reads no API key from its environment for the built-in OpenAI provider. Give a provider that ` +
        `names the key, e.g. provider: { name: "openai-key", baseUrl: "https://api.openai.com/v1", ` +
        `wireApi: "responses", envKey: "${names[0]}" }, or drop credentialEnv to use your Codex login`,
    }),
    login,
  });
}
