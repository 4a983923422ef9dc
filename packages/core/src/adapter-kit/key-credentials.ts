/**
 * An agent that authenticates with one key variable (its own `MY_AGENT_API_KEY`): whether a
 * session has something to authenticate with, and the variable's value for a launch pointed
 * at a provider. The user's own login of the agent is never copied into the isolated home,
 * so without a provider the key must be mapped with the selection's `credentialEnv`.
 *
 * @example
 * ```ts
 * const credentials = keyCredentials("My Agent", "MY_AGENT_API_KEY", "chat-completions");
 * const env = { ...launch.env, ...providerKey(launch, "MY_AGENT_API_KEY") };
 * ```
 */
import type {
  Capability,
  HarnessLaunch,
  ModelProvider,
  ProviderDialect,
} from "../harness/contract.js";
import { providerCredentials } from "./credentials.js";

/** The value a keyless provider (the scripted model) gets for an agent that needs a key to start. */
export const NO_KEY = "m3-no-key";

/**
 * The credentials of `agent`, which reads its key from `variable`: an explicit provider's
 * (see {@link providerCredentials}), else ready when `variable` is mapped; unavailable
 * otherwise, saying how to map it or which provider to give (`dialect`'s).
 */
export function keyCredentials(
  agent: string,
  variable: string,
  dialect: ProviderDialect,
): (provider: ModelProvider | undefined, credentialNames: readonly string[]) => Capability {
  return (provider, names) =>
    providerCredentials(provider, names) ??
    (names.includes(variable)
      ? { status: "ready" }
      : {
          status: "unavailable",
          reason:
            `no provider and no ${variable}: ${agent}'s own login is not copied into the isolated home. ` +
            `Map a key with credentialEnv: { ${variable}: "<PARENT_VARIABLE>" }, or give a provider ` +
            `(the scripted model's providerFor("${dialect}"))`,
        });
}

/**
 * `variable` for an agent pointed at `launch`'s provider: the value of the provider's mapped
 * key, or {@link NO_KEY} for a keyless provider; nothing without a provider (the agent reads
 * the mapped variable itself).
 */
export function providerKey(
  launch: Pick<HarnessLaunch, "provider" | "env">,
  variable: string,
): Record<string, string> {
  const provider = launch.provider;
  if (!provider) return {};
  const value = provider.envKey !== undefined ? (launch.env[provider.envKey] ?? "") : NO_KEY;
  return { [variable]: value };
}
