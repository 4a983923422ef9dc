/**
 * The reporter's stable public path, `jest-m3/dist/reporter.js`, for a `reporters` list
 * (the module itself is `main/reporter.ts`).
 */
import M3Reporter from "./main/reporter.js";
export = M3Reporter;
