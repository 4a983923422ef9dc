import { toBeCompleted } from "./to-be-completed.js";
import { toHaveCapability } from "./to-have-capability.js";
import { toHaveChangedFiles } from "./to-have-changed-files.js";
import { toHaveFileContent } from "./to-have-file-content.js";
import { toHaveContent } from "./to-have-content.js";
import { toHaveDuration, toHaveDurationBetween } from "./to-have-duration.js";
import { toHaveElicitation } from "./to-have-elicitation.js";
import { toHaveError } from "./to-have-error.js";
import { toHaveEvent } from "./to-have-event.js";
import { toHaveLifecycle } from "./to-have-lifecycle.js";
import { toHaveOutcome } from "./to-have-outcome.js";
import { toHaveProtocolVersion } from "./to-have-protocol-version.js";
import { toHaveStructuredContent } from "./to-have-structured-content.js";
import { toHaveText, toHaveTextContaining, toMatchText } from "./to-have-text.js";
import { toHaveReportedToolCall, toHaveToolCall } from "./to-have-tool-call.js";
import { toHaveToolCalls } from "./to-have-tool-calls.js";
import { toHaveTrace } from "./to-have-trace.js";
import { toMatchTrajectorySnapshot } from "./to-match-trajectory-snapshot.js";
import { toPassJudge } from "./to-pass-judge.js";
import { toStayWithinTokens } from "./to-stay-within-tokens.js";
import { toHaveModelRequests } from "./to-have-model-requests.js";

/** Every jest-m3 matcher, for `expect.extend(m3Matchers)`. */
export const m3Matchers = {
  toHaveToolCall,
  toHaveReportedToolCall,
  toHaveToolCalls,
  toMatchTrajectorySnapshot,
  toHaveOutcome,
  toBeCompleted,
  toHaveLifecycle,
  toHaveError,
  toHaveDuration,
  toHaveDurationBetween,
  toHaveText,
  toHaveTextContaining,
  toMatchText,
  toHaveStructuredContent,
  toHaveContent,
  toHaveProtocolVersion,
  toHaveCapability,
  toHaveEvent,
  toHaveTrace,
  toHaveElicitation,
  toPassJudge,
  toStayWithinTokens,
  toHaveModelRequests,
  toHaveChangedFiles,
  toHaveFileContent,
};
