/**
 * The test sequencer's stable public path, `jest-m3/dist/test-sequencer.js`, for a
 * `testSequencer` setting (the module itself is `main/test-sequencer.ts`).
 */
export { default } from "./main/test-sequencer.js";
