"use strict";
/**
 * The jest-m3 Jest preset: `preset: "jest-m3"` in a Jest configuration.
 *
 * TypeScript tests run through ts-jest; agent turns take seconds, so the default test
 * timeout is long. The setup file registers the matchers and closes kits a test left
 * open; the serializer keeps trace snapshots stable.
 */
module.exports = {
  // Jest's node environment, plus a guard that stops a worker's processes if Jest dies.
  testEnvironment: require.resolve("./dist/environment.js"),
  transform: {
    "^.+\\.tsx?$": [require.resolve("ts-jest"), {}],
  },
  moduleFileExtensions: ["ts", "tsx", "js", "mjs", "cjs", "json"],
  testMatch: ["**/?(*.)+(test).ts"],
  testPathIgnorePatterns: ["/node_modules/", "/dist/"],
  testTimeout: 180_000,
  // jest-m3's global setup, which also puts the reporter back when a user's `reporters`
  // (which replace the preset's) leave it out.
  globalSetup: require.resolve("./dist/report/reporter-wiring.js"),
  globalTeardown: require.resolve("./dist/global-teardown.js"),
  setupFilesAfterEnv: [require.resolve("./dist/setup-after-env.js")],
  reporters: ["default", require.resolve("./dist/reporter.js")],
  snapshotSerializers: [require.resolve("./dist/trace-serializer.js")],
};
