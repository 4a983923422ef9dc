/**
 * The test environment's stable public path, `jest-m3/dist/environment.js`, for a
 * `testEnvironment` setting (the module itself is `worker/environment.ts`).
 */
export { default } from "./worker/environment.js";
