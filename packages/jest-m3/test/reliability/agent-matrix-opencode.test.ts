/** The reliability matrix (agent-matrix.ts) on opencode. */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("opencode");
