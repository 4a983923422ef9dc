/**
 * The reliability matrix (agent-matrix.ts) on gemini, cold (`warm: false`): only the cells
 * about the agent process a session owns (killed, stopped, one per session under load, its
 * home in the kit's folders). Gemini CLI's sessions are warm by default, and
 * agent-matrix-gemini-warm.test.ts runs every cell on them.
 */
import { describeColdMatrix } from "./agent-matrix";

describeColdMatrix("gemini");
