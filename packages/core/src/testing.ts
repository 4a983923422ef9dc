/**
 * `@jest-m3/core/testing`: test doubles for packages and users that test with jest-m3.
 * `mockServer()` is an MCP server made from tool definitions and handlers (over stdio or
 * HTTP); `withFaults()` wraps any stdio server so its traffic misbehaves as planned;
 * `recordingFromTrace()` and `replayServer()` record MCP traffic and replay it as a server.
 * `testHarness()` is a small deterministic adapter that makes real MCP calls through the
 * captured servers it is given (so wire evidence is real) from instructions in the prompt;
 * `connectCaptured()` is an MCP SDK client connected to a captured server. For tests that build
 * an adapter's launch by hand: `parseToolPolicy()` (the allow-list a launch carries) and
 * `correlateTurn()` (a turn's reported calls matched with the wire's).
 *
 * @packageDocumentation
 */
export { testHarness, type TestHarnessOptions } from "./testing/test-harness.js";
export { connectCaptured } from "./testing/captured-client.js";
export { parseToolPolicy } from "./servers/tool-policy.js";
export { correlateTurn } from "./evidence/correlation.js";
export {
  mockServer,
  MockServer,
  type MockServerOptions,
  type MockTool,
  type MockToolContext,
  type MockToolResult,
  type MockResource,
  type MockPrompt,
  type MockPromptArgument,
  type MockPromptGet,
  type MockCall,
} from "./testing/mock-server.js";
export { withFaults, type Fault, type FaultPlan } from "./testing/fault-injector.js";
export {
  recordingFromTrace,
  saveRecording,
  loadRecording,
  replayServer,
  type Recording,
  type RecordedExchange,
} from "./testing/recording.js";
