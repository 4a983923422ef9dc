/**
 * The reliability matrix (agent-matrix.ts) on Kilo Code, every session on its warm pool
 * (`options: { warm: true }`: one `kilo acp` process per server set, each session its own
 * ACP session). Kilo Code's sessions are cold by default.
 *
 * All 12 cells passed in three whole runs of this file (about 100 s each, with `cells`
 * removed). CI runs the cells about the warm process (killed, stopped, 8 sessions at once
 * on it, its home and the planted key) and the cut stream, the one cell where Kilo Code
 * does something of its own (it may wait for a network it takes for lost): Kilo Code is
 * cold by default, and the other cells are about the agent's answers to faults, the same
 * warm or cold.
 */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("kilo", {
  warm: true,
  cells: /agent killed|agent hanging|sessions at once|planted key|cut stream/,
});
