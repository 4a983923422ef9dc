/**
 * `@jest-m3/test-support`: what the packages' tests share (private, never published). MCP
 * servers that log every call they receive (the ground truth of a test), process checks made
 * independently of the kit, launches built by hand for an adapter's tests, and waits on
 * events instead of sleeps. A test imports it by name, never another package's test folder.
 */
export * from "./paths";
export * from "./servers";
export * from "./processes";
export * from "./launch";
export * from "./waits";
export { BOOK_RULE, deskPerTest, deskServer } from "./desk-server";
export * from "./conformance";
export * from "./seed";
export * from "./secrets";
export * from "./per-test";
export * from "./agent-checks";
export * from "./adapter-turns";
export * from "./node-agent";
export * from "./readiness";
export * from "./together";
export * from "./tsconfig";
export * from "./rules";
export * from "./test-harness";
export * from "./turns";
