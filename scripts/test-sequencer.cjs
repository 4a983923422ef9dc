"use strict";
/**
 * The root run's test order: slowest files first, so the workers finish together
 * instead of one running a two-minute file alone at the end.
 *
 * Jest's own sequencer already does this from its duration cache, but a fresh clone (CI)
 * has no cache and falls back to file size, which says little here: a short file that
 * builds user projects outlasts a long file of unit tests. This sequencer keeps Jest's
 * order (files that failed last time first, then by duration) and only fills in the
 * durations Jest does not know from scripts/test-durations.json, measured seconds per file
 * (refresh it with `node scripts/test-durations.mjs <jest --json output>`). A file in
 * neither runs first, as Jest runs files it has never timed.
 */
const { readFileSync } = require("node:fs");
const { join, relative, sep } = require("node:path");
const Sequencer = require("@jest/test-sequencer").default;

const REPO = join(__dirname, "..");
const DURATIONS = join(__dirname, "test-durations.json");

/** @returns {Record<string, number>} milliseconds per repository-relative test path */
function measured() {
  try {
    const seconds = JSON.parse(readFileSync(DURATIONS, "utf8"));
    return Object.fromEntries(
      Object.entries(seconds).map(([path, value]) => [path, Number(value) * 1000]),
    );
  } catch {
    return {};
  }
}

class SlowestFirstSequencer extends Sequencer {
  /** @param {{ contexts: unknown, globalConfig: unknown }} options */
  constructor(options) {
    super(options);
    this.measured = measured();
  }

  /** @param {{ path: string }} test */
  time(test) {
    const cached = super.time(test);
    if (cached !== undefined) return cached;
    return this.measured[relative(REPO, test.path).split(sep).join("/")];
  }
}

module.exports = SlowestFirstSequencer;
