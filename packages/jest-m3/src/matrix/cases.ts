/**
 * Case tables for matrices: prompts × expectations expanded per agent (m3's HarnessMatrix
 * `each_tool`, `each_server`, `all_servers`) and direct tool calls per server and tool
 * (m3's ToolMatrix), as plain arrays for `test.each`.
 */
import {
  InvalidArgument,
  type ExecutionResult,
  type MCPTestKit,
  type ServerSpec,
} from "@jest-m3/core";
import type { MatrixAgent } from "../shared/agent-list.js";

/** One tool of a server in a matrix: how to call it directly, and how to ask an agent to. */
export interface ToolCaseInput {
  readonly name: string;
  /** Arguments for a direct call (ToolMatrix). */
  readonly arguments?: Readonly<Record<string, unknown>>;
  /** What to tell the agent so it calls this tool (needed by `eachTool` without a prompt). */
  readonly prompt?: string;
}

/** A server and the tools a matrix covers. */
export interface ServerCaseInput {
  readonly server: ServerSpec;
  readonly tools: readonly ToolCaseInput[];
}

/** One agent case: what to run, on which agent, with which servers and allow-list. */
export interface AgentCase {
  /** `server/tool/agent`, `server/agent` or `all-servers/agent`: stable, for test names. */
  readonly id: string;
  readonly mode: "each_tool" | "each_server" | "all_servers";
  readonly agent: MatrixAgent;
  readonly servers: readonly ServerSpec[];
  /** The allow-list: the case's tools only. */
  readonly tools: readonly string[];
  readonly prompt: string;
  /** The tool under test (`each_tool`), else null. */
  readonly tool: string | null;
  /** The server under test (`each_tool`, `each_server`), else null. */
  readonly server: string | null;
}

/** One direct case: a tool called directly on its server. */
export interface ToolCase {
  /** `server/tool`. */
  readonly id: string;
  readonly server: ServerSpec;
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

function serverName(spec: ServerSpec): string {
  const name = (spec as { name?: unknown }).name;
  if (typeof name !== "string" || name === "") {
    throw new InvalidArgument("matrix: every server needs a name.");
  }
  return name;
}

function checkInputs(servers: readonly ServerCaseInput[], where: string): void {
  if (!Array.isArray(servers) || servers.length === 0) {
    throw new InvalidArgument(`${where}: give at least one { server, tools }.`);
  }
  for (const entry of servers) {
    const name = serverName(entry.server);
    if (!Array.isArray(entry.tools) || entry.tools.length === 0) {
      throw new InvalidArgument(`${where}: server "${name}" lists no tools.`);
    }
  }
}

/**
 * Server × tool × agent: each case asks one agent to call one tool, with an allow-list of
 * that tool only. The prompt is the tool's own `prompt`, else `prompt` given here.
 *
 * @example
 * ```ts
 * test.each(eachTool([{ server, tools: [{ name: "shipping_quote", prompt: "Quote 2 kg local." }] }], agents()))(
 *   "$id", async (c) => { ... },
 * );
 * ```
 */
export function eachTool(
  servers: readonly ServerCaseInput[],
  agentList: readonly MatrixAgent[],
  prompt?: string,
): AgentCase[] {
  checkInputs(servers, "eachTool()");
  return servers.flatMap((entry) =>
    entry.tools.flatMap((tool) => {
      const text = tool.prompt ?? prompt;
      const server = serverName(entry.server);
      if (!text) {
        throw new InvalidArgument(
          `eachTool(): tool "${server}:${tool.name}" has no prompt; give it one ({ name, prompt }) or pass a prompt for every tool.`,
        );
      }
      return agentList.map((agent) => ({
        id: `${server}/${tool.name}/${agent.label}`,
        mode: "each_tool" as const,
        agent,
        servers: [entry.server],
        tools: [`${server}:${tool.name}`],
        prompt: text,
        tool: tool.name,
        server,
      }));
    }),
  );
}

/** Server × agent: each case binds one server with its listed tools allowed. */
export function eachServer(
  servers: readonly ServerCaseInput[],
  agentList: readonly MatrixAgent[],
  prompt: string,
): AgentCase[] {
  checkInputs(servers, "eachServer()");
  return servers.flatMap((entry) => {
    const server = serverName(entry.server);
    return agentList.map((agent) => ({
      id: `${server}/${agent.label}`,
      mode: "each_server" as const,
      agent,
      servers: [entry.server],
      tools: entry.tools.map((tool) => `${server}:${tool.name}`),
      prompt,
      tool: null,
      server,
    }));
  });
}

/** Agent cases with every server bound at once, their listed tools allowed. */
export function allServers(
  servers: readonly ServerCaseInput[],
  agentList: readonly MatrixAgent[],
  prompt: string,
): AgentCase[] {
  checkInputs(servers, "allServers()");
  return agentList.map((agent) => ({
    id: `all-servers/${agent.label}`,
    mode: "all_servers" as const,
    agent,
    servers: servers.map((entry) => entry.server),
    tools: servers.flatMap((entry) =>
      entry.tools.map((tool) => `${serverName(entry.server)}:${tool.name}`),
    ),
    prompt,
    tool: null,
    server: null,
  }));
}

/** Server × tool, for direct calls (m3's ToolMatrix). */
export function toolCases(servers: readonly ServerCaseInput[]): ToolCase[] {
  checkInputs(servers, "toolCases()");
  return servers.flatMap((entry) =>
    entry.tools.map((tool) => ({
      id: `${serverName(entry.server)}/${tool.name}`,
      server: entry.server,
      tool: tool.name,
      arguments: tool.arguments ?? {},
    })),
  );
}

/**
 * Runs one agent case as a one-turn session on `kit`: the case's servers, its allow-list,
 * its prompt. Resolves with the final result to assert on.
 */
export async function runCase(
  kit: MCPTestKit,
  agentCase: AgentCase,
  options: { readonly timeout?: number } = {},
): Promise<ExecutionResult> {
  const [selection] = kit.agents([agentCase.agent.selection]);
  return selection!.run(agentCase.prompt, {
    servers: agentCase.servers,
    tools: agentCase.tools,
    ...(options.timeout ? { timeout: options.timeout } : {}),
  });
}
