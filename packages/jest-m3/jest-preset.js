"use strict";
/**
 * The jest-m3 Jest preset: `preset: "jest-m3"` in a Jest configuration.
 *
 * TypeScript tests run through ts-jest, transpiling only (`tsc --noEmit` checks types);
 * agent turns take seconds, so the default test timeout is long. A run whose tests never
 * import jest-m3 (found by the test sequencer before global setup) starts nothing and
 * loads nothing of the kit. The setup file registers the matchers and closes kits a test left
 * open; the serializer keeps trace snapshots stable. The results folder (`.m3`, or the
 * configuration's `resultsDir`) is never a test, a module or a reason to rerun in watch mode.
 */
const { resultsIgnorePatterns, TS_JEST_OPTIONS } = require("./dist/shared/preset-paths.js");

const results = resultsIgnorePatterns(process.cwd());

module.exports = {
  // Jest's node environment, plus a guard that stops a worker's processes if Jest dies.
  testEnvironment: require.resolve("./dist/worker/environment.js"),
  transform: {
    "^.+\\.tsx?$": [require.resolve("./dist/worker/ts-transform.js"), TS_JEST_OPTIONS],
    // JavaScript tests (and the project's own modules they import) in CommonJS whatever the
    // package's "type": an ESM project's `.test.js` runs without --experimental-vm-modules.
    "^(?!.*[\\\\/](node_modules|dist)[\\\\/]).+\\.jsx?$":
      require.resolve("./dist/worker/js-transform.js"),
  },
  moduleFileExtensions: ["ts", "tsx", "js", "mjs", "cjs", "json"],
  testMatch: ["**/?(*.)+(test).ts", "**/?(*.)+(test).js", "**/?(*.)+(test).cjs"],
  testPathIgnorePatterns: ["/node_modules/", "/dist/", ...results],
  modulePathIgnorePatterns: results,
  watchPathIgnorePatterns: results,
  testTimeout: 180_000,
  // Laid out by process: main/ runs in Jest's main process, worker/ in each test worker,
  // shared/ in both (shared/hand-off.ts is what global setup hands the workers). Global
  // setup also puts the reporter back when a user's `reporters` (which replace the
  // preset's) leave it out.
  globalSetup: require.resolve("./dist/main/global-setup.js"),
  globalTeardown: require.resolve("./dist/main/global-teardown.js"),
  setupFilesAfterEnv: [require.resolve("./dist/worker/setup-entry.js")],
  testSequencer: require.resolve("./dist/main/test-sequencer.js"),
  reporters: ["default", require.resolve("./dist/main/reporter.js")],
  snapshotSerializers: [require.resolve("./dist/worker/trace-serializer.js")],
};
