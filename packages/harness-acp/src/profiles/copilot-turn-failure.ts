import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { monotonicNow } from "@jest-m3/core/harness";
import type { EndedTurn } from "./profile.js";

/** Copilot's home (`COPILOT_HOME`) inside the agent's isolated home. */
export const COPILOT_HOME_FOLDER = "copilot-home";

/** How long a turn that showed an `Error: ` chunk waits for Copilot's own log to say why. */
const LOG_WAIT_MS = 1000;
const LOG_POLL_MS = 50;

/** What Copilot's session log says went wrong in the session's last prompt. */
interface SessionError {
  readonly message: string;
  readonly statusCode?: number;
}

/**
 * The `session.error` events Copilot wrote to its session log since the last
 * `user.message` (the prompt of the turn that just ended: a session's turns run one at a
 * time).
 */
export function lastPromptErrors(log: string): SessionError[] {
  const errors: SessionError[] = [];
  for (const line of log.split("\n")) {
    if (line.trim() === "") continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      continue; // a line still being written
    }
    if (typeof event !== "object" || event === null) continue;
    const { type, data } = event as { type?: unknown; data?: unknown };
    if (type === "user.message") errors.length = 0;
    if (type !== "session.error" || typeof data !== "object" || data === null) continue;
    const { message, statusCode } = data as { message?: unknown; statusCode?: unknown };
    if (typeof message !== "string") continue;
    errors.push(typeof statusCode === "number" ? { message, statusCode } : { message });
  }
  return errors;
}

/**
 * GitHub Copilot CLI 1.0 reports a failing provider (an HTTP 400, 500, ...) as one answer
 * chunk `Error: <message>` and ends the prompt with `end_turn`. A turn fails when such a
 * chunk is confirmed by Copilot's own session log (`session-state/<id>/events.jsonl` in its
 * home: a `session.error` of this prompt with the same message), so a model that merely
 * answers "Error: ..." still completes. The log is read only when a chunk starts with
 * `Error: `, waiting up to a second for Copilot to write it.
 */
export async function copilotTurnFailure(turn: EndedTurn): Promise<string | undefined> {
  const shown = new Set(
    turn.chunks.filter((chunk) => chunk.startsWith("Error: ")).map((chunk) => chunk.slice(7)),
  );
  if (shown.size === 0) return undefined;
  const log = join(
    turn.homeRoot,
    COPILOT_HOME_FOLDER,
    "session-state",
    turn.sessionId,
    "events.jsonl",
  );
  const deadline = monotonicNow() + LOG_WAIT_MS;
  for (;;) {
    const text = await readFile(log, "utf8").catch(() => "");
    const error = lastPromptErrors(text).find((one) => shown.has(one.message));
    if (error) {
      const status = error.statusCode !== undefined ? ` (HTTP ${error.statusCode})` : "";
      return `GitHub Copilot CLI's model provider failed the turn${status}: ${error.message}`;
    }
    if (monotonicNow() >= deadline) return undefined;
    await sleep(LOG_POLL_MS);
  }
}
