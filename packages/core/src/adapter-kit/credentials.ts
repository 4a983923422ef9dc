/**
 * The one rule for a session's credentials: an explicit provider needs its key variable
 * mapped; without one, the credential variables the agent reads; without those, the user's
 * own login of the agent. The adapter says what its agent does with credential names.
 *
 * @example
 * ```ts
 * const credentials = agentCredentials(provider, credentialNames, {
 *   named: (names) => (names.includes("MY_AGENT_KEY") ? { status: "ready" } : { status: "unavailable", reason: "map MY_AGENT_KEY" }),
 *   login: { usable: false, reason: "no login of My Agent in ~/.my-agent" },
 * });
 * ```
 */
import type { Capability, ModelProvider } from "../harness/contract.js";

/**
 * The credentials of an explicit provider: ready, unless it names a key variable the
 * selection's `credentialEnv` does not map. Undefined without a provider (the agent's own
 * rules decide: a login, a key variable).
 */
export function providerCredentials(
  provider: ModelProvider | undefined,
  credentialNames: readonly string[],
): Capability | undefined {
  if (!provider) return undefined;
  if (provider.envKey !== undefined && !credentialNames.includes(provider.envKey)) {
    return {
      status: "unavailable",
      reason: `provider "${provider.name}" reads its key from ${provider.envKey}, which is not mapped; add credentialEnv: { ${provider.envKey}: "<PARENT_VARIABLE>" }`,
    };
  }
  return { status: "ready" };
}

/** What {@link agentCredentials} needs to know of the agent. */
export interface CredentialRules {
  /** The capability when credential variables are mapped and no provider is given. */
  named(credentialNames: readonly string[]): Capability;
  /** The user's own login of the agent (used when nothing else is given). */
  readonly login: { readonly usable: boolean; readonly reason?: string };
}

/** A provider's key, else the mapped credential variables, else the user's login. */
export function agentCredentials(
  provider: ModelProvider | undefined,
  credentialNames: readonly string[],
  rules: CredentialRules,
): Capability {
  const explicit = providerCredentials(provider, credentialNames);
  if (explicit) return explicit;
  if (credentialNames.length > 0) return rules.named(credentialNames);
  if (rules.login.usable) return { status: "ready" };
  const reason = `no provider and no credentials given, and ${rules.login.reason ?? "no login was found"}`;
  return { status: "unavailable", reason };
}
