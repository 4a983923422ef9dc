/**
 * The reliability matrix (agent-matrix.ts) on Qwen Code, cold (`warm: false`): only the
 * cells about the agent process a session owns (killed, stopped, one per session under
 * load, its home in the kit's folders). Qwen Code's sessions are warm by default, and
 * agent-matrix-qwen-warm.test.ts runs every cell on them.
 */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("qwen-code", {
  warm: false,
  cells: /agent killed|agent hanging|sessions at once|planted key/,
});
