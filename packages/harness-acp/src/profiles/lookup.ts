/**
 * What the profiles share but say differently: how an agent's executable is found (the
 * adapter kit's lookup with the profile's package, variable and bin), and the refusal of a
 * `builtinTools` entry that names an MCP tool.
 */
import {
  resolveAgentExecutable,
  type InstalledBinary,
  type TestedRange,
} from "@jest-m3/core/adapter-kit";
import { InvalidAcpOptions } from "../errors.js";
import type { AcpProfile } from "./profile.js";

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
  return (selection, config) =>
    resolveAgentExecutable(
      {
        agent,
        variable,
        packageName: tested.packageName,
        binName,
        installVersion: tested.min,
        ...(installed ? { installed } : {}),
      },
      selection.executable,
      config,
    );
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
