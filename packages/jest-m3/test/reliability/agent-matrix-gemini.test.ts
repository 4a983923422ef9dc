/** The reliability matrix (agent-matrix.ts) on gemini. */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("gemini");
