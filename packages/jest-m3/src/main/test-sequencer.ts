/**
 * The preset's `testSequencer`: Jest's own order, plus the run plan (`run-plan.ts`). Jest
 * sorts the run's tests before it calls global setup, in the same process, so this is
 * where the run learns whether any test can use the kit before anything is started.
 */
import Sequencer from "@jest/test-sequencer";
import { mayUseKit, recordPlan } from "../shared/run-plan.js";

type Tests = Parameters<Sequencer["sort"]>[0];

/**
 * Jest's default test sequencer, which also records whether any test of the run (or a
 * setup file of its projects) may use jest-m3. A project that needs its own order extends
 * this class; one that replaces it loses nothing but the quick path (global setup then
 * starts everything, as for a run with agent tests).
 */
export default class M3Sequencer extends Sequencer {
  /** Records the run plan, then sorts as Jest does. */
  override sort(tests: Tests): ReturnType<Sequencer["sort"]> {
    const files = new Set<string>();
    for (const test of tests) {
      files.add(test.path);
      for (const setup of [
        ...test.context.config.setupFiles,
        ...test.context.config.setupFilesAfterEnv,
      ]) {
        files.add(setup);
      }
    }
    recordPlan(mayUseKit([...files]));
    return super.sort(tests);
  }
}
