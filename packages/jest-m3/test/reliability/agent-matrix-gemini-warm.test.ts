/**
 * The reliability matrix (agent-matrix.ts) on gemini, every session on its warm pool:
 * Gemini CLI's default, so this file runs every cell.
 */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("gemini", { warm: true });
