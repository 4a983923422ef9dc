/**
 * Fanning tests out per agent: the run's agents (m3.config.json `agents`, or `M3_AGENTS`)
 * as a list, and `describeAgents` to declare a block of tests once per agent.
 */
import { describe } from "@jest/globals";
import { loadConfig } from "../shared/config.js";
import { RUN_ENV } from "../shared/hand-off.js";
import { agentBlockName, registerAgentBlock } from "./agent-snapshots.js";
import {
  expandAgents,
  InvalidAgentList,
  parseAgentsVariable,
  type MatrixAgent,
} from "../shared/agent-list.js";

/**
 * The run's agents, one per harness × model: what global setup resolved (the
 * `M3_AGENTS` variable over m3.config.json's `agents`), else the same resolved here.
 *
 * @throws {@link InvalidAgentList} when none is configured or the list is malformed.
 */
export function agents(): MatrixAgent[] {
  const resolved = process.env[RUN_ENV.agents];
  if (resolved) return JSON.parse(resolved) as MatrixAgent[];
  const variable = process.env.M3_AGENTS;
  if (variable !== undefined && variable.trim() !== "")
    return expandAgents(parseAgentsVariable(variable));
  const config = loadConfig(process.cwd());
  if (config.agents) return expandAgents(config.agents);
  throw new InvalidAgentList(
    "none configured",
    'no agents to run: add "agents": [{ "harness": "codex", "models": ["gpt-5.5"] }] to m3.config.json, ' +
      'or set M3_AGENTS="codex=gpt-5.5,claude-code=claude-sonnet-5-5".',
  );
}

/**
 * Declares `body`'s tests once per agent of the run, in a describe block named
 * `name [harness version model]`, so `-t codex` runs one agent and reports group by agent.
 * Jest may run the files of several agents in parallel across workers.
 *
 * @example
 * ```ts
 * describeAgents("seed", (agent) => {
 *   test("two turns share one session", async () => {
 *     await using kit = new MCPTestKit({ env: {} });
 *     const [selection] = kit.agents([agent.selection]);
 *     ...
 *   });
 * });
 * ```
 */
export function describeAgents(name: string, body: (agent: MatrixAgent) => void): void {
  for (const agent of agents()) {
    // Recorded so the block's trajectory snapshots are shared by the agents (no version).
    registerAgentBlock(name, agent);
    describe(agentBlockName(name, agent), () => body(agent));
  }
}
