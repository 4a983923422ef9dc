/**
 * How the preset's test environment and its setup file talk across the sandbox boundary:
 * globals of the test's sandbox, named by registered symbols.
 */

/** Set by the environment on the sandbox: the preset's environment is in use. */
export const ENVIRONMENT_MARK = Symbol.for("jest-m3.environment");

/** Set by the setup file: what to run when a test is done, after its afterEach hooks. */
export const TEST_DONE_HOOK = Symbol.for("jest-m3.test-done");

/** Set by the setup file: what to run when the file's tests are done, after every afterAll. */
export const FILE_DONE_HOOK = Symbol.for("jest-m3.file-done");

/** Set by the setup file: told the full name of each test Jest skips (`-t`, `.skip`, `.todo`). */
export const TEST_SKIPPED_HOOK = Symbol.for("jest-m3.test-skipped");

/** Set by the setup file: `(text) => text` without the secrets this file's kits handed out. */
export const SCRUB_HOOK = Symbol.for("jest-m3.scrub");
