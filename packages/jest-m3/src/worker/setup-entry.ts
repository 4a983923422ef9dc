/**
 * The preset's `setupFilesAfterEnv` entry: the kit's setup (`setup-after-env.ts`: matchers,
 * the run's runtime, kits left open) for every test file of a run that may use jest-m3,
 * nothing for a run whose tests cannot (see `run-plan.ts`). Loading the kit costs a few
 * hundred milliseconds per test file; a one-line test should not pay it.
 */
import { kitUnusedInRun } from "../shared/run-plan.js";

// A plain require, so the kit's modules are not loaded at all when the run does not use them;
// Jest's own `require` (the test file's module registry), where the matchers must land.
// eslint-disable-next-line @typescript-eslint/no-require-imports
if (!kitUnusedInRun()) require("./setup-after-env.js");
