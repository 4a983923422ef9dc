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
  readonly install: string;
  /** Variables that carry a credential for a live run (names only, never values). */
  readonly credentials: readonly string[];
}

/** The harnesses jest-m3 publishes. Third-party ones are probed when the configuration names them. */
export const KNOWN_HARNESSES: readonly KnownHarness[] = [
  {
    name: "codex",
    packageName: "@jest-m3/harness-codex",
    install: "npm install --save-dev @jest-m3/harness-codex @openai/codex@0.171.0",
    credentials: ["OPENAI_API_KEY"],
  },
  {
    name: "claude-code",
    packageName: "@jest-m3/harness-claude-code",
    install: "npm install --save-dev @jest-m3/harness-claude-code @anthropic-ai/claude-code",
    credentials: ["ANTHROPIC_API_KEY"],
  },
  {
    name: "gemini",
    packageName: "@jest-m3/harness-acp",
    install: "npm install --save-dev @jest-m3/harness-acp @google/gemini-cli",
    credentials: ["GEMINI_API_KEY"],
  },
  {
    name: "opencode",
    packageName: "@jest-m3/harness-acp",
    install: "npm install --save-dev @jest-m3/harness-acp opencode-ai",
    credentials: ["OPENAI_API_KEY"],
  },
  {
    name: "kilo",
    packageName: "@jest-m3/harness-acp",
    install: "npm install --save-dev @jest-m3/harness-acp @kilocode/cli@7.7.7",
    credentials: ["OPENAI_API_KEY"],
  },
  {
    name: "copilot",
    packageName: "@jest-m3/harness-acp",
    install: "npm install --save-dev @jest-m3/harness-acp @github/copilot@1.0.102",
    credentials: ["COPILOT_PROVIDER_API_KEY"],
  },
  {
    name: "qwen-code",
    packageName: "@jest-m3/harness-acp",
    install: "npm install --save-dev @jest-m3/harness-acp @qwen-code/qwen-code@0.24.4",
    credentials: ["OPENAI_API_KEY"],
  },
  {
    name: "pi",
    packageName: "@jest-m3/harness-pi",
    install: "npm install --save-dev @jest-m3/harness-pi @earendil-works/pi-coding-agent@1.6.0",
    credentials: ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"],
  },
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
