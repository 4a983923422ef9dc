/**
 * The run's scripted model (m3.config.json `scriptedModel`) lives in Jest's main process;
 * its journal reaches the workers and the user through the run folder.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The run's scripted model's whole journal, written when the run ends (in the run folder). */
export const MODEL_JOURNAL = "model-journal.json";
/** The scripted model's problems, one JSON line each as they happen (in the run folder). */
export const MODEL_PROBLEMS = "model-problems.jsonl";

/** A request the run's scripted model answered with no rule of its script. */
export interface ModelProblem {
  /** Its number in the journal ("request #3"). */
  readonly index: number;
  /** When it arrived (epoch ms). */
  readonly at: number;
  /** `POST /v1/responses`. */
  readonly request: string;
  /** What went wrong (no rule matched, a tool not offered, ...). */
  readonly problem: string;
  /** The kind of the model's decision (`unmatched`, `tool_not_offered`, `reply`, ...). */
  readonly kind?: string;
  /** The latest user message of the conversation, or null. */
  readonly user: string | null;
}

/** The problems the run's scripted model has had so far, read from the run folder. */
export function modelProblems(dir: string): ModelProblem[] {
  const file = join(dir, MODEL_PROBLEMS);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as ModelProblem);
}

/**
 * Whether a problem fails the test whose turn caused it:
 * - a turn no rule of the script matched (the agent got a stand-in reply; a test that checks
 *   only what did not happen would pass on a broken script). A script with a `fallback` has
 *   none: that is the opt-out;
 * - a scripted call to a tool the request did not offer (the agent never got to call it). A
 *   test of an allow-list provokes it on purpose: its rule (or script) says
 *   `"toolNotOffered": "expected"`, and the model then records no problem.
 * Other problems (a template value a tool result lacked) stay in the journal,
 * `model-journal.json`.
 */
export function failsTheTest(kind: string | undefined): boolean {
  return kind === "unmatched" || kind === "tool_not_offered";
}
