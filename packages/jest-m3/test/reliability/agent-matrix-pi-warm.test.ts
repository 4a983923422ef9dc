/**
 * The reliability matrix (agent-matrix.ts) on Pi, every session on its warm pool
 * (`options: { warm: true }`: one Pi process per session at a time, an exclusive lease).
 */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("pi", { warm: true });
