"use strict";
/**
 * The packages' Jest projects. The examples run as their own Jest run (`npm run
 * test:examples`), from their folder, so they read their own m3.config.json as a user's
 * project does.
 */
const packages = [
  "core",
  "scripted-model",
  "harness-codex",
  "harness-claude-code",
  "harness-acp",
  "harness-pi",
  "jest-m3",
];

module.exports = {
  // Global options are not taken from a project's preset; name the reporter here too.
  reporters: ["default", require.resolve("./packages/jest-m3/dist/reporter.js")],
  // Likewise the preset's testTimeout: projects do not inherit it here.
  testTimeout: 180_000,
  // Most of a test's time is spent waiting on agent binaries and servers: two workers on
  // two cores keep the run near a few minutes (Jest's default is cores - 1).
  maxWorkers: 2,
  // Slowest files first, from Jest's duration cache or, on a fresh clone, from the committed
  // scripts/test-durations.json: the two workers then finish together.
  testSequencer: require.resolve("./scripts/test-sequencer.cjs"),
  projects: [
    ...packages.map((name) => ({
      displayName: name,
      rootDir: `<rootDir>/packages/${name}`,
      preset: "jest-m3",
      testMatch: ["<rootDir>/test/**/*.test.ts"],
      // CI retries a failed test once, printing its first failure (scripts/ci-retry.cjs).
      setupFilesAfterEnv: [require.resolve("./scripts/ci-retry.cjs")],
    })),
  ],
};
