/**
 * The reliability matrix (agent-matrix.ts) on Qwen Code, every session on its warm pool:
 * Qwen Code's default, so this file runs every cell (the eight sessions at once on one
 * process: the profile sets no limit of sessions a process).
 */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("qwen-code", { warm: true });
