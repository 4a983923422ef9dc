/**
 * Every dialect the scripted model speaks, in the order routes are matched.
 */
import { anthropicMessages } from "./anthropic-messages";
import { chatCompletions } from "./chat-completions";
import type { Dialect, ProviderDialect } from "./dialect";
import { gemini } from "./gemini";
import { responses } from "./responses";

/** The dialect modules. @internal */
export const DIALECTS: readonly Dialect[] = [responses, chatCompletions, anthropicMessages, gemini];

/** A dialect's name for messages, with its article, e.g. `a Responses API`. @internal */
export function describeDialect(dialect: ProviderDialect): string {
  switch (dialect) {
    case "responses":
      return "a Responses API";
    case "chat-completions":
      return "a Chat Completions";
    case "anthropic-messages":
      return "an Anthropic Messages";
    case "gemini":
      return "a Gemini API";
  }
}
