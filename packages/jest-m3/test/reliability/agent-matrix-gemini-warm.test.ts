/** The reliability matrix (agent-matrix.ts) on gemini, every session on its warm pool. */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("gemini", { warm: true });
