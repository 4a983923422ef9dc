/**
 * The reliability matrix (agent-matrix.ts) on opencode, every session on its warm pool:
 * OpenCode's default, so this file runs every cell (the eight sessions at once on
 * processes of at most 3 sessions each, the profile's `warmSessions`).
 */
import { describeAgentMatrix } from "./agent-matrix";

describeAgentMatrix("opencode", { warm: true });
