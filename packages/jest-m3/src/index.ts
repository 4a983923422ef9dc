/**
 * `jest-m3`: test MCP servers through real coding agents, with Jest.
 *
 * Everything a test needs comes from here: the kit and server specs from `@jest-m3/core`,
 * and `expect`.
 *
 * @packageDocumentation
 */
export * from "@jest-m3/core";
export { expect } from "@jest/globals";
