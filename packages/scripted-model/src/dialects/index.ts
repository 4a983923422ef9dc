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

/** A dialect's name for messages, e.g. `Responses API`. @internal */
export function describeDialect(dialect: ProviderDialect): string {
  switch (dialect) {
    case "responses":
      return "Responses API";
    case "chat-completions":
      return "Chat Completions";
    case "anthropic-messages":
      return "Anthropic Messages";
    case "gemini":
      return "Gemini API";
  }
}
