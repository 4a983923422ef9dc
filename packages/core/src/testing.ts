/**
 * `@jest-m3/core/testing`: test doubles for packages and users that test with jest-m3.
 * `testHarness()` is a small deterministic adapter that makes real MCP calls through the
 * captured servers it is given (so wire evidence is real) from instructions in the prompt;
 * `connectCaptured()` is an MCP SDK client connected to a captured server.
 *
 * @packageDocumentation
 */
export { testHarness, type TestHarnessOptions } from "./testing/test-harness.js";
export { connectCaptured } from "./testing/captured-client.js";
