/**
 * The harnesses jest-m3 publishes: their names, their packages, how to install them. The
 * doctor lists them; global setup suggests only these (never a guessed package name) when
 * a configuration names a harness that does not exist.
 */

import { suggestName } from "@jest-m3/core/lean";

/** A harness jest-m3 knows, the package that brings it, and what else it needs. */
export interface KnownHarness {
  readonly name: string;
  readonly packageName: string;
  /** The npm package of the agent itself (its binary), e.g. `@openai/codex`. */
  readonly agentPackage: string;
  /** The command that installs both, with the agent's pinned version where one is tested. */
  readonly install: string;
  /** Variables that carry a credential for a live run (names only, never values). */
  readonly credentials: readonly string[];
}

/** A published harness: its package, its agent's package (pinned when `version` is given). */
function known(
  name: string,
  packageName: string,
  agentPackage: string,
  version: string | undefined,
  credentials: readonly string[],
): KnownHarness {
  const agent = version === undefined ? agentPackage : `${agentPackage}@${version}`;
  const install = `npm install --save-dev ${packageName} ${agent}`;
  return { name, packageName, agentPackage, install, credentials };
}

/** The harnesses jest-m3 publishes. Third-party ones are probed when the configuration names them. */
export const KNOWN_HARNESSES: readonly KnownHarness[] = [
  known("codex", "@jest-m3/harness-codex", "@openai/codex", "0.171.0", ["OPENAI_API_KEY"]),
  known("claude-code", "@jest-m3/harness-claude-code", "@anthropic-ai/claude-code", undefined, [
    "ANTHROPIC_API_KEY",
  ]),
  known("gemini", "@jest-m3/harness-acp", "@google/gemini-cli", undefined, ["GEMINI_API_KEY"]),
  known("opencode", "@jest-m3/harness-acp", "opencode-ai", undefined, ["OPENAI_API_KEY"]),
  known("kilo", "@jest-m3/harness-acp", "@kilocode/cli", "7.7.7", ["OPENAI_API_KEY"]),
  known("copilot", "@jest-m3/harness-acp", "@github/copilot", "1.0.102", [
    "COPILOT_PROVIDER_API_KEY",
  ]),
  known("qwen-code", "@jest-m3/harness-acp", "@qwen-code/qwen-code", "0.24.4", ["OPENAI_API_KEY"]),
  known("pi", "@jest-m3/harness-pi", "@earendil-works/pi-coding-agent", "1.6.0", [
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
  ]),
];

/** Other names the published harnesses answer to. */
const ALIASES: Readonly<Record<string, string>> = {
  claude: "claude-code",
  claude_code: "claude-code",
  qwen: "qwen-code",
};

/** Every name a published harness answers to (`acp` takes any agent by command). */
export const KNOWN_HARNESS_NAMES: readonly string[] = [
  ...KNOWN_HARNESSES.map((harness) => harness.name),
  "acp",
  ...Object.keys(ALIASES),
];

/** The published harness a mistyped name most likely meant, or undefined. */
export function didYouMean(name: string): string | undefined {
  const best = suggestName(name.toLowerCase(), KNOWN_HARNESS_NAMES);
  return best === null ? undefined : (ALIASES[best] ?? best);
}
