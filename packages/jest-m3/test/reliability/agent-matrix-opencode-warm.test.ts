/**
 * The reliability matrix (agent-matrix.ts) on opencode with every session on its warm pool
 * (`warm: true`; OpenCode's default is cold, and agent-matrix-opencode.test.ts runs every
 * cell cold): the cells about the agent process a session is served by (killed, stopped,
 * eight sessions at once on processes of at most 3 sessions each). All 12 cells pass warm
 * too: run this file with `cells` left out to see them.
 */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("opencode", {
  warm: true,
  cells: /agent killed|agent hanging|sessions at once/,
});
