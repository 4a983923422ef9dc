/** The reliability matrix (agent-matrix.ts) on claude-code, every session on its warm pool. */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("claude-code", { warm: true });
