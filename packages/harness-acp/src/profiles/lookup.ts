/**
 * What the profiles share but say differently: how an agent's executable is found (the
 * adapter kit's lookup with the profile's package, variable and bin), the refusal of a
 * `builtinTools` entry that names an MCP tool, the credential rules and the provider's key
 * (for an agent that reads one key variable: the adapter kit's).
 */
import {
  providerCredentials,
  executableResolver,
  type InstalledBinary,
  type TestedRange,
} from "@jest-m3/core/adapter-kit";
import { InvalidAcpOptions } from "../errors.js";
import type { AcpProfile } from "./profile.js";

export { keyCredentials, providerKey } from "@jest-m3/core/adapter-kit";

/**
 * A profile's `executable`: the selection's `executable`, then `variable` in the kit's
 * configuration, then the installed package (`installed` for a native binary it carries,
 * else its `binName` bin), then `binName` on PATH.
 */
export function profileExecutable(
  agent: string,
  variable: string,
  tested: TestedRange,
  binName: string,
  installed?: () => InstalledBinary,
): AcpProfile<never>["executable"] {
  const search = { agent, variable, packageName: tested.packageName, binName };
  const resolve = executableResolver({ ...search, installVersion: tested.min, installed });
  return (selection, config) => resolve(selection, config);
}

/**
 * Refuses `builtinTools` entries that would let an MCP tool past the adapter: names with the
 * agent's MCP prefix (`mcp_`, `mcp__`). `examples` names a few of the agent's own tools.
 */
export function refuseMcpToolNames(
  profile: string,
  agent: string,
  mcpPrefix: string,
  examples: string,
  builtinTools: readonly string[],
): void {
  for (const name of builtinTools) {
    if (name.startsWith(mcpPrefix)) {
      throw new InvalidAcpOptions(
        profile,
        "builtinTools",
        `lists "${name}", an MCP tool's name: builtinTools turns on ${agent}'s own tools (${examples}, ...); MCP tools are chosen by the session's tools.`,
      );
    }
  }
}

/**
 * The credentials of an OpenCode-like agent: an explicit provider's, else a model named
 * `<provider>/<model>` and at least one credential mapped for that provider.
 */
export function providerModelCredentials(agent: string): AcpProfile<never>["credentials"] {
  return (provider, names, model) => {
    const viaProvider = providerCredentials(provider, names);
    if (viaProvider) return viaProvider;
    if (!model.includes("/")) {
      return {
        status: "unavailable",
        reason: `without a provider, ${agent} needs a model as "<provider>/<model>" (e.g. "anthropic/claude-sonnet-4-5"), got "${model}"`,
      };
    }
    if (names.length > 0) return { status: "ready" };
    return {
      status: "unavailable",
      reason:
        `no provider and no credentials: ${agent}'s own login is not copied into the isolated home. ` +
        'Map the provider\'s key with credentialEnv (e.g. { ANTHROPIC_API_KEY: "<PARENT_VARIABLE>" }), ' +
        'or give a provider (the scripted model\'s providerFor("chat-completions"))',
    };
  };
}
