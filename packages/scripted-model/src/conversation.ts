/**
 * The neutral conversation every dialect reads its requests into (user and assistant texts,
 * tool calls, tool results, tool searches, the tools offered), and what the scripted model
 * reads from it: the turn, the latest user message, the tool results, how far it already got.
 *
 * Agents send the whole history with every request, so the server needs no memory of earlier
 * requests: the call ids it hands out encode the rule and step they came from.
 */
import type { ProviderDialect, SidePurpose } from "./dialects/names";
import type { Conversation, ToolResult } from "./script";
import { isPlainObject } from "./script";

/** One item of a neutral conversation, in order. */
export type NeutralItem =
  | { type: "user"; text: string }
  | { type: "assistant"; text: string }
  | {
      type: "call";
      callId: string;
      /** The namespace (Codex's `mcp__shipping`), or `null` for a flat name. */
      namespace: string | null;
      name: string;
      arguments: unknown;
    }
  /** A tool search the model made (Codex's `tool_search_call`, Claude Code's `ToolSearch`). */
  | { type: "search"; callId: string; query: string }
  | { type: "search_result"; callId: string; names: string[] }
  | { type: "result"; callId: string; output: string };

/** The tools a request lets the model call. */
export interface OfferedTools {
  /** Namespace name (e.g. `mcp__shipping`) → function names in it, from `tools` and tool_search outputs. */
  namespaces: Map<string, Set<string>>;
  /** Top-level function tool names. */
  functions: Set<string>;
  /** Tool names listed as deferred (loadable through a `select:` tool search), not yet offered. */
  deferred: Set<string>;
  /**
   * The tool search the request offers: `codex` (search by words, any tool), `select`
   * (Claude Code's ToolSearch, deferred tools only), or `null`.
   */
  search: "codex" | "select" | null;
  /** The tool search tool's name, when offered (`tool_search`, `ToolSearch`). */
  searchTool: string | null;
  /** Whether messages list every offered name (agents whose names are not Codex's). */
  listNames: boolean;
}

/** A request read into the neutral form by its dialect. */
export interface NeutralRequest {
  dialect: ProviderDialect;
  items: NeutralItem[];
  offered: OfferedTools;
  /** The `model` the request names (body or URL). */
  model: string;
  /** Whether it asked for a stream. */
  stream: boolean;
  /** The parsed body. */
  body: Record<string, unknown>;
  /** Identifies the conversation (for faults served once), `"default"` when unknown. */
  conversationKey: string;
  /** Set for a side request (title, routing, summary, …). */
  side?: SidePurpose;
  /** For JSON-mode side requests: the schema of the answer. */
  schema?: unknown;
}

/** Empty offered tools. */
export function noTools(listNames = true): OfferedTools {
  return {
    namespaces: new Map(),
    functions: new Set(),
    deferred: new Set(),
    search: null,
    searchTool: null,
    listNames,
  };
}

/** A request with no conversation (a probe, a model list): nothing said, nothing offered. */
export function emptyRequest(dialect: ProviderDialect, model: string): NeutralRequest {
  return {
    dialect,
    items: [],
    offered: noTools(),
    model,
    stream: false,
    body: {},
    conversationKey: "default",
  };
}

/** Where the scripted model stands in the current turn, read back from its own call ids. */
export interface TurnPosition {
  /** The rule index (-1 = fallback) of the latest scripted call in this turn. */
  rule: number;
  /** The step index (0-based, in compiled steps) of that call. */
  step: number;
  /** Whether that latest item was a tool search (the step still has to make its calls). */
  searching: boolean;
}

/** Everything the scripted model reads from one request. */
export interface ReadRequest {
  conversation: Conversation;
  offered: OfferedTools;
  /** The latest scripted position in this turn, or `null` at the start of a turn. */
  position: TurnPosition | null;
  /** Rules that already answered in this turn (from call ids). */
  rulesUsed: Set<number>;
  /** Call ids of tool searches made in this turn. */
  searchesMade: Set<string>;
  /** Identifies the conversation, `"default"` when absent. */
  conversationKey: string;
}

const SCRIPTED_ID = /^(call|ts)_m3_t(\d+)_r(\d+|f)_s(\d+)_(\d+)$/;

/** The call id the scripted model gives a call (`call`) or a tool search (`ts`). */
export function scriptedCallId(
  kind: "call" | "ts",
  turn: number,
  rule: number,
  step: number,
  k: number,
): string {
  return `${kind}_m3_t${turn}_r${rule < 0 ? "f" : rule}_s${step}_${k}`;
}

/** Reads the conversation out of a neutral request; `refs` are the script's `server:tool`s. */
export function readConversation(
  request: NeutralRequest,
  refs: readonly string[] = [],
): ReadRequest {
  const items = request.items;
  let turn = 0;
  let latestUser = -1;
  let user = "";
  items.forEach((item, index) => {
    if (item.type !== "user") return;
    turn += 1;
    latestUser = index;
    user = item.text;
  });

  const calls = new Map<string, { server: string | null; tool: string }>();
  const results: ToolResult[] = [];
  const turnResults: ToolResult[] = [];
  items.forEach((item, index) => {
    if (item.type === "call") {
      calls.set(item.callId, mcpName(item.namespace, item.name, refs));
    } else if (item.type === "result") {
      const call = calls.get(item.callId);
      const result: ToolResult = {
        callId: item.callId,
        server: call?.server ?? null,
        tool: call?.tool ?? null,
        output: item.output,
        value: parseJson(item.output),
      };
      results.push(result);
      if (index > latestUser) turnResults.push(result);
    }
  });

  let position: TurnPosition | null = null;
  const rulesUsed = new Set<number>();
  const searchesMade = new Set<string>();
  for (const item of items.slice(latestUser + 1)) {
    if (item.type !== "call" && item.type !== "search") continue;
    const id = SCRIPTED_ID.exec(item.callId);
    if (id === null || Number(id[2]) !== turn) continue;
    const rule = id[3] === "f" ? -1 : Number(id[3]);
    rulesUsed.add(rule);
    if (id[1] === "ts") searchesMade.add(item.callId);
    position = { rule, step: Number(id[4]), searching: id[1] === "ts" };
  }

  return {
    conversation: {
      user,
      turn,
      lastToolResult: results.at(-1) ?? null,
      turnResults,
      model: request.model,
      body: request.body,
    },
    offered: request.offered,
    position,
    rulesUsed,
    searchesMade,
    conversationKey: request.conversationKey,
  };
}

/**
 * The names an agent may give the MCP tool `server:tool`, most specific first: Claude Code's
 * `mcp__server__tool`, Gemini CLI's `mcp_server_tool`, OpenCode's `server_tool`, GitHub
 * Copilot CLI's `server-tool`, then the bare `tool`.
 */
export function toolNames(server: string, tool: string): string[] {
  return [...new Set([...qualifiedToolNames(server, tool), tool, sanitize(tool)])];
}

function qualifiedToolNames(server: string, tool: string): string[] {
  const names: string[] = [];
  for (const s of new Set([server, sanitize(server)])) {
    for (const t of new Set([tool, sanitize(tool)])) {
      names.push(`mcp__${s}__${t}`, `mcp_${s}_${t}`, `${s}_${t}`, `${s}__${t}`, `${s}-${t}`);
    }
  }
  return names;
}

/** The MCP name (`server`, `tool`) of an offered or called name, as far as it can be told. */
export function mcpName(
  namespace: string | null,
  name: string,
  refs: readonly string[],
): { server: string | null; tool: string } {
  if (namespace !== null && namespace.startsWith("mcp__")) {
    return { server: namespace.slice(5), tool: name };
  }
  const flat = /^mcp__(.+?)__(.+)$/.exec(name);
  if (flat) return { server: flat[1] as string, tool: flat[2] as string };
  for (const ref of refs) {
    const [server = "", tool = ""] = ref.split(":");
    if (qualifiedToolNames(server, tool).includes(name)) return { server, tool };
  }
  return { server: null, tool: name };
}

/**
 * The MCP tools a request offers, as `server:tool`: namespaced and `mcp__s__t` names, and
 * names that are one of the script's tools in another agent's naming.
 */
export function offeredMcpTools(offered: OfferedTools, refs: readonly string[] = []): string[] {
  const out = new Set<string>();
  for (const [namespace, names] of offered.namespaces) {
    if (!namespace.startsWith("mcp__")) continue;
    for (const name of names) out.add(`${namespace.slice(5)}:${name}`);
  }
  for (const name of offered.functions) {
    const found = mcpName(null, name, refs);
    if (found.server !== null) out.add(`${found.server}:${found.tool}`);
  }
  return [...out].sort();
}

/** Every tool name a request offers (flat, `namespace/name`, deferred marked), sorted. */
export function offeredNames(offered: OfferedTools): string[] {
  const out: string[] = [];
  for (const [namespace, names] of offered.namespaces) {
    for (const name of names) out.push(`${namespace}/${name}`);
  }
  out.push(...offered.functions);
  for (const name of offered.deferred) {
    if (!offered.functions.has(name)) out.push(`${name} (deferred)`);
  }
  return out.sort();
}

/** How to reach `server:tool` given what a request offers. */
export type Exposure =
  { kind: "direct"; namespace: string | null; name: string } | { kind: "deferred"; name: string };

/** How to call `server:tool` given what the request offers, or `null` when it is not offered. */
export function toolExposure(offered: OfferedTools, server: string, tool: string): Exposure | null {
  for (const candidate of new Set([server, sanitize(server)])) {
    const names = offered.namespaces.get(`mcp__${candidate}`);
    if (names === undefined) continue;
    for (const name of new Set([tool, sanitize(tool)])) {
      if (names.has(name)) return { kind: "direct", namespace: `mcp__${candidate}`, name };
    }
  }
  const names = toolNames(server, tool);
  for (const name of names) {
    if (offered.functions.has(name) && name !== offered.searchTool) {
      return { kind: "direct", namespace: null, name };
    }
  }
  for (const name of names) {
    if (offered.deferred.has(name)) return { kind: "deferred", name };
  }
  return null;
}

function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** The role of a message item, or `undefined` for other items. */
export function messageRole(item: Record<string, unknown>): string | undefined {
  if (item.type !== undefined && item.type !== "message") return undefined;
  return typeof item.role === "string" ? item.role : undefined;
}

/** The text of a message item: its text parts joined by newlines. */
export function messageText(item: Record<string, unknown>): string {
  return contentText(item.content);
}

/** A message's content as text: a string as it is, else its text parts joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(isPlainObject)
    .map((part) => (typeof part.text === "string" ? part.text : ""))
    .filter((text) => text.length > 0)
    .join("\n");
}

/**
 * Whether a user-role text is context Codex adds (`<environment_context>…</environment_context>`,
 * AGENTS.md instructions, …) rather than something the user typed.
 */
export function isContextualUserText(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.startsWith("# AGENTS.md instructions for ")) return true;
  const open = /^<([A-Za-z_][\w-]*)>/.exec(trimmed);
  return open !== null && trimmed.toLowerCase().endsWith(`</${(open[1] as string).toLowerCase()}>`);
}

const WALL_TIME = /^Wall time: [^\n]*\nOutput:\n/;

/** The text of a function call output, without Codex's `Wall time: … Output:` preamble. */
export function toolOutputText(output: unknown): string {
  let text: string;
  if (typeof output === "string") text = output;
  else if (Array.isArray(output)) {
    text = output
      .filter(isPlainObject)
      .map((part) => (typeof part.text === "string" ? part.text : ""))
      .join("\n");
  } else if (isPlainObject(output) && typeof output.content === "string") text = output.content;
  else text = output === undefined ? "" : JSON.stringify(output);
  return text.replace(WALL_TIME, "");
}

/** A tool output's value: parsed JSON when it is JSON, else the text. */
export function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (!/^[[{"]/.test(trimmed)) return text;
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}
