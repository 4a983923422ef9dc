/**
 * The reliability matrix (agent-matrix.ts) on Qwen Code, every session on its warm pool
 * (`options: { warm: true }`; Qwen Code's sessions are cold by default).
 */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("qwen-code", { warm: true });
