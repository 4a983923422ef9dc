/**
 * The reliability matrix (agent-matrix.ts) on Qwen Code, cold (`warm: false`): only the
 * cells about the agent process a session owns (killed, stopped, one per session under
 * load, its home in the kit's folders). Qwen Code's sessions are warm by default, and
 * agent-matrix-qwen-warm.test.ts runs every cell on them.
 */
import { describeColdMatrix } from "./agent-matrix";

describeColdMatrix("qwen-code");
