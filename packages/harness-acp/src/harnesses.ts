import { defineHarness, type HarnessDefinition } from "@jest-m3/core/harness";
import type { ResolvedCommonOptions } from "./options.js";
import { agentProfile } from "./profiles/agent.js";
import { copilotProfile } from "./profiles/copilot.js";
import { geminiProfile } from "./profiles/gemini.js";
import { kiloProfile } from "./profiles/kilo.js";
import { opencodeProfile } from "./profiles/opencode.js";
import { qwenProfile } from "./profiles/qwen.js";
import type { AcpProfile } from "./profiles/profile.js";
import { acpReadiness, acpReadinessKey } from "./readiness.js";
import { openAcpSession } from "./open.js";

/**
 * Turns a launch profile into a harness definition: the same ACP adapter (client,
 * sessions, turns, evidence, readiness) with what the profile knows about its agent.
 *
 * @example
 * ```ts
 * export const myAgentHarness = defineAcpHarness(myAgentProfile);
 * ```
 */
export function defineAcpHarness<O extends ResolvedCommonOptions>(
  profile: AcpProfile<O>,
): HarnessDefinition {
  return defineHarness({
    name: profile.name,
    dialects: profile.dialects,
    readiness: acpReadiness(profile),
    readinessKey: acpReadinessKey(profile),
    open: openAcpSession(profile),
  });
}

/** `harness: "acp"`: any ACP agent, by `options.command` and `options.args`. */
export const acpHarness: HarnessDefinition = defineAcpHarness(agentProfile);

/** `harness: "gemini"`: Gemini CLI (`gemini --acp`) in the `gemini` dialect. */
export const geminiHarness: HarnessDefinition = defineAcpHarness(geminiProfile);

/** `harness: "opencode"`: OpenCode (`opencode acp`) in the `chat-completions` dialect. */
export const opencodeHarness: HarnessDefinition = defineAcpHarness(opencodeProfile);

/** `harness: "kilo"`: Kilo Code CLI (`kilo acp`) in the `chat-completions` dialect. */
export const kiloHarness: HarnessDefinition = defineAcpHarness(kiloProfile);

/** `harness: "copilot"`: GitHub Copilot CLI (`copilot --acp`) in the `chat-completions` dialect. */
export const copilotHarness: HarnessDefinition = defineAcpHarness(copilotProfile);

/**
 * `harness: "qwen-code"` (alias `qwen`): Qwen Code (`cli.js --acp` on a Node ≥ 22) in the
 * `chat-completions` dialect.
 */
export const qwenHarness: HarnessDefinition = defineHarness({
  ...defineAcpHarness(qwenProfile),
  aliases: ["qwen"],
});

/** Every harness kind of this package, for the registry (`"jest-m3": { "harnesses": [...] }`). */
export const harnesses: readonly HarnessDefinition[] = Object.freeze([
  acpHarness,
  geminiHarness,
  opencodeHarness,
  kiloHarness,
  copilotHarness,
  qwenHarness,
]);
