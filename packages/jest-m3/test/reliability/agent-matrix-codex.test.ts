/** The reliability matrix (agent-matrix.ts) on codex. */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("codex");
