/** The reliability matrix (agent-matrix.ts) on claude-code. */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("claude-code");
