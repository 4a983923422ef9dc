/**
 * The reliability matrix (agent-matrix.ts) on Kilo Code, every session on its warm pool:
 * Kilo Code's default (one `kilo acp` process per server set, each session its own ACP
 * session, no limit of sessions a process), so this file runs every cell, the eight
 * sessions at once included. Its cut-stream cell accepts either of Kilo Code's answers to a
 * cut (`cutMayHang`). A session's own cold process (`warm: false`) is proven in
 * harness-acp's kilo-session.test.ts (killed mid-turn, the planted secrets in its home).
 */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("kilo", { warm: true });
