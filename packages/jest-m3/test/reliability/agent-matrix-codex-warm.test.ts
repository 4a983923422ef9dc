/** The reliability matrix (agent-matrix.ts) on codex, every session on its warm pool. */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("codex", { warm: true });
