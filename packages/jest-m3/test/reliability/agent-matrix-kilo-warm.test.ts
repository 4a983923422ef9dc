/**
 * The reliability matrix (agent-matrix.ts) on Kilo Code, every session on its warm pool
 * (`options: { warm: true }`: one `kilo acp` process per server set, each session its own
 * ACP session). Kilo Code's sessions are cold by default.
 */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("kilo", { warm: true });
