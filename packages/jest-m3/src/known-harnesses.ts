/**
 * The harnesses jest-m3 publishes: their names, their packages, how to install them. The
 * doctor lists them; global setup suggests only these (never a guessed package name) when
 * a configuration names a harness that does not exist.
 */

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
];

/** Other names the published harnesses answer to. */
const ALIASES: Readonly<Record<string, string>> = {
  claude: "claude-code",
  claude_code: "claude-code",
};

/** Every name a published harness answers to (`acp` takes any agent by command). */
export const KNOWN_HARNESS_NAMES: readonly string[] = [
  ...KNOWN_HARNESSES.map((harness) => harness.name),
  "acp",
  ...Object.keys(ALIASES),
];

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}

/** The published harness a mistyped name most likely meant, or undefined. */
export function didYouMean(name: string): string | undefined {
  const scored = KNOWN_HARNESS_NAMES.map((known) => ({
    known,
    score: distance(name.toLowerCase(), known),
  }))
    .filter((entry) => entry.score <= Math.max(2, Math.floor(entry.known.length / 3)))
    .sort((a, b) => a.score - b.score);
  const best = scored[0]?.known;
  return best === undefined ? undefined : (ALIASES[best] ?? best);
}
