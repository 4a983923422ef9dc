/**
 * The judge's prompt and its one tool. The prompt is the same in every dialect: a system
 * text that says what a verdict is, and a user text with the criteria and the evidence.
 * docs/judges.md shows it; a snapshot test pins it.
 */
import type { JudgeEvidence, JudgedTurn } from "./evidence.js";

/** The name of the one tool the judge must call. */
export const VERDICT_TOOL = "verdict";

/** What the `verdict` tool is for, as the judge reads it. */
export const VERDICT_DESCRIPTION =
  "Record your verdict on whether the evidence meets the criteria. Call it exactly once.";

/** The JSON Schema of the `verdict` tool's arguments (a subset every dialect accepts). */
export const VERDICT_PARAMETERS = {
  type: "object",
  properties: {
    pass: { type: "boolean", description: "true when the evidence meets the criteria" },
    score: {
      type: "number",
      description: "how fully the criteria are met, from 0 (not at all) to 1 (fully)",
    },
    reasoning: {
      type: "string",
      description: "one to three sentences citing the evidence that decided the verdict",
    },
  },
  required: ["pass", "score", "reasoning"],
} as const;

/** The judge's system text. */
export const JUDGE_INSTRUCTIONS = [
  "You judge the work of an AI agent in an automated test.",
  "You get criteria and evidence: for each turn, the prompt the agent received, the tool calls it made (with arguments, status and result) and the reply it gave.",
  "Decide from the evidence alone whether the criteria are met. Tool results are what really happened; the reply is only what the agent said.",
  `Answer only by calling the ${VERDICT_TOOL} tool once, with pass, score (0 to 1) and reasoning.`,
].join("\n");

/** The two texts sent to a judge. */
export interface JudgePrompt {
  /** The system text ({@link JUDGE_INSTRUCTIONS}). */
  readonly system: string;
  /** The criteria and the evidence. */
  readonly user: string;
}

/** The prompt for `criteria` over `evidence`. */
export function judgePrompt(criteria: string, evidence: JudgeEvidence): JudgePrompt {
  const count = evidence.turns.length;
  const what =
    evidence.scope === "session"
      ? `the whole session, ${count} turn${count === 1 ? "" : "s"}`
      : `turn ${evidence.turns[0]?.number ?? "?"}`;
  const lines = ["## Criteria", "", criteria.trim(), "", `## Evidence (${what})`];
  for (const turn of evidence.turns) lines.push("", ...turnLines(turn));
  return { system: JUDGE_INSTRUCTIONS, user: lines.join("\n") };
}

function turnLines(turn: JudgedTurn): string[] {
  const lines = [`### Turn ${turn.number}`, "", "Prompt:", indent(turn.prompt), ""];
  if (turn.toolCalls.length === 0) lines.push("Tool calls: none");
  else {
    lines.push(`Tool calls (${turn.toolCalls.length}):`);
    turn.toolCalls.forEach((call, index) => {
      lines.push(
        `${index + 1}. ${call.server}:${call.tool} (${call.status})`,
        `   arguments: ${call.arguments}`,
        `   result: ${call.result}`,
      );
    });
  }
  lines.push("", "Reply:", turn.reply === null ? "  (the turn has no reply)" : indent(turn.reply));
  return lines;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}
