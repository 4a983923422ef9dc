/**
 * Judges: a model asked, through one forced `verdict` call, whether a turn or a session
 * meets criteria. Runner-agnostic; jest-m3's `toPassJudge` formats what this decides.
 */
export { askJudge, checkJudgeAsk, type AskJudgeOptions } from "./client.js";
export { InvalidJudge, JudgeFailed, type JudgeFailure } from "./errors.js";
export {
  judgeEvidence,
  isJudgeSubject,
  MAX_EVIDENCE_VALUE,
  type JudgeEvidence,
  type JudgeSubject,
  type JudgedTurn,
  type JudgedToolCall,
} from "./evidence.js";
export {
  checkJudgeSelection,
  resolveJudge,
  judgeSelectionSchema,
  JUDGE_TIMEOUT_MS,
  type JudgeSelection,
  type JudgeProvider,
  type ResolvedJudge,
  type JudgeContext,
} from "./judge-spec.js";
export {
  judgePrompt,
  JUDGE_INSTRUCTIONS,
  VERDICT_TOOL,
  VERDICT_PARAMETERS,
  type JudgePrompt,
} from "./prompt.js";
export {
  judgeRequest,
  readJudgeAnswer,
  type JudgeRequest,
  type JudgeUsage,
  type JudgeAnswer,
} from "./wire.js";
export { verdictsOf, type Verdict } from "./verdicts.js";
export { evaluators, type Evaluation, type ExpectedCall } from "./evaluators.js";
