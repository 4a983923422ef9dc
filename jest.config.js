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
  // Many files mostly wait (the fault matrices' cells end in the timeouts they prove: the
  // warm Gemini CLI matrix used 13 CPU-seconds in 63 s), so two workers on two cores left
  // the cores idle while both waited. Three keep them busy; the whole suite passed with
  // three under a load of 5 to 16, no test retried (Jest's default is cores - 1).
  maxWorkers: 3,
  // Slowest files first, from Jest's duration cache or, on a fresh clone, from the committed
  // scripts/test-durations.json: the workers then finish together.
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
