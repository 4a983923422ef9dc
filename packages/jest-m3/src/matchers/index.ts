import { toBeCompleted } from "./to-be-completed.js";
import { toHaveError } from "./to-have-error.js";
import { toHaveOutcome } from "./to-have-outcome.js";
import { toHaveStructuredContent } from "./to-have-structured-content.js";
import { toHaveText, toHaveTextContaining, toMatchText } from "./to-have-text.js";
import { toHaveToolCall } from "./to-have-tool-call.js";
import { toHaveToolCalls } from "./to-have-tool-calls.js";

/** Every jest-m3 matcher, for `expect.extend(m3Matchers)`. */
export const m3Matchers = {
  toHaveToolCall,
  toHaveToolCalls,
  toHaveOutcome,
  toBeCompleted,
  toHaveError,
  toHaveText,
  toHaveTextContaining,
  toMatchText,
  toHaveStructuredContent,
};
