/**
 * `jest-m3`: test MCP servers through real coding agents, with Jest.
 *
 * Everything a test needs comes from here: the kit, server specs and results from
 * `@jest-m3/core`, and an `expect` with the m3 matchers and the fluent tool-call chain.
 *
 * @packageDocumentation
 */
// The user API only: adapter authors import @jest-m3/core/harness, runner bindings
// @jest-m3/core/runner, test doubles @jest-m3/core/testing.
export * from "@jest-m3/core";
export { expect, type M3Expect, type M3Assertions, type ToolCallChain } from "./worker/expect.js";
export { m3Matchers } from "./matchers/index.js";
export type { M3Matchers } from "./types.js";
export type { ToolCallOptions } from "./matchers/to-have-tool-call.js";
export type { ToolCallsOptions } from "./matchers/to-have-tool-calls.js";
export type { DurationOptions } from "./matchers/to-have-duration.js";
export type { TokenBudget, TokenBudgetOptions } from "./matchers/to-stay-within-tokens.js";
export type { ModelRequestsOptions } from "./matchers/to-have-model-requests.js";
export type { ElicitationOptions } from "./matchers/to-have-elicitation.js";
export type { PassJudgeOptions } from "./matchers/to-pass-judge.js";
export type { TrajectoryStep, TrajectoryMode } from "@jest-m3/core/runner";
export { describeConformance } from "./worker/conformance.js";
export { scriptedProvider, runDir, webServerUrl } from "./shared/hand-off.js";
export { loadConfig, InvalidConfig, type M3Config } from "./shared/config.js";
export { agents, describeAgents } from "./matrix/describe-agents.js";
export {
  InvalidAgentList,
  parseAgentsVariable,
  type MatrixAgent,
  type MatrixAgentEntry,
} from "./shared/agent-list.js";
export {
  trials,
  summarize,
  wilsonInterval,
  TrialsFailed,
  type TrialRequirement,
  type TrialVerdict,
  type TrialsSummary,
} from "./matrix/trials.js";
export {
  eachTool,
  eachServer,
  allServers,
  toolCases,
  runCase,
  type AgentCase,
  type ToolCase,
  type ToolCaseInput,
  type ServerCaseInput,
} from "./matrix/cases.js";
