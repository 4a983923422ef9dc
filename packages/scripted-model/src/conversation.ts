/**
 * Reading a Responses API request: the conversation it carries (user messages, turn number,
 * tool results), the tools it offers, and how far the scripted model already got in this turn.
 *
 * Codex sends the whole history with every request, so the server needs no memory of earlier
 * requests: the call ids it hands out encode the rule and step they came from.
 */
import type { Conversation, ToolResult } from "./script";
import { isPlainObject } from "./script";

/** The tools a request lets the model call. */
export interface OfferedTools {
  /** Namespace name (e.g. `mcp__shipping`) → function names in it, from `tools` and tool_search outputs. */
  namespaces: Map<string, Set<string>>;
  /** Top-level function tool names. */
  functions: Set<string>;
  /** Whether the request offers the `tool_search` tool. */
  toolSearch: boolean;
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
  /** Identifies the conversation (Codex's `prompt_cache_key`), `"default"` when absent. */
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

/** Reads a request body (already parsed JSON). */
export function readRequest(body: Record<string, unknown>): ReadRequest {
  const input = Array.isArray(body.input) ? (body.input as unknown[]) : [];
  const items = input.filter(isPlainObject);

  let turn = 0;
  let latestUser = -1;
  let user = "";
  items.forEach((item, index) => {
    if (messageRole(item) !== "user") return;
    const text = messageText(item);
    if (isContextualUserText(text)) return;
    turn += 1;
    latestUser = index;
    user = text;
  });

  const calls = new Map<string, { server: string | null; tool: string }>();
  const results: ToolResult[] = [];
  const turnResults: ToolResult[] = [];
  items.forEach((item, index) => {
    if (item.type === "function_call" && typeof item.call_id === "string") {
      calls.set(item.call_id, splitToolName(item.namespace, item.name));
    } else if (item.type === "function_call_output" && typeof item.call_id === "string") {
      const call = calls.get(item.call_id);
      const output = toolOutputText(item.output);
      const result: ToolResult = {
        callId: item.call_id,
        server: call?.server ?? null,
        tool: call?.tool ?? null,
        output,
        value: parseJson(output),
      };
      results.push(result);
      if (index > latestUser) turnResults.push(result);
    }
  });

  let position: TurnPosition | null = null;
  const rulesUsed = new Set<number>();
  const searchesMade = new Set<string>();
  for (const item of items.slice(latestUser + 1)) {
    if (item.type !== "function_call" && item.type !== "tool_search_call") continue;
    const id = typeof item.call_id === "string" ? SCRIPTED_ID.exec(item.call_id) : null;
    if (id === null || Number(id[2]) !== turn) continue;
    const rule = id[3] === "f" ? -1 : Number(id[3]);
    rulesUsed.add(rule);
    if (id[1] === "ts") searchesMade.add(item.call_id as string);
    position = { rule, step: Number(id[4]), searching: id[1] === "ts" };
  }

  return {
    conversation: {
      user,
      turn,
      lastToolResult: results.at(-1) ?? null,
      turnResults,
      model: typeof body.model === "string" ? body.model : "",
      body,
    },
    offered: offeredTools(body, items),
    position,
    rulesUsed,
    searchesMade,
    conversationKey: typeof body.prompt_cache_key === "string" ? body.prompt_cache_key : "default",
  };
}

function offeredTools(
  body: Record<string, unknown>,
  items: Record<string, unknown>[],
): OfferedTools {
  const offered: OfferedTools = { namespaces: new Map(), functions: new Set(), toolSearch: false };
  const add = (tools: unknown) => {
    if (!Array.isArray(tools)) return;
    for (const tool of tools) {
      if (!isPlainObject(tool)) continue;
      if (tool.type === "tool_search") offered.toolSearch = true;
      if (tool.type === "function" && typeof tool.name === "string")
        offered.functions.add(tool.name);
      if (tool.type === "namespace" && typeof tool.name === "string") {
        const names = offered.namespaces.get(tool.name) ?? new Set<string>();
        if (Array.isArray(tool.tools)) {
          for (const inner of tool.tools) {
            if (isPlainObject(inner) && typeof inner.name === "string") names.add(inner.name);
          }
        }
        offered.namespaces.set(tool.name, names);
      }
    }
  };
  add(body.tools);
  for (const item of items) {
    if (item.type === "tool_search_output") add(item.tools);
  }
  return offered;
}

/** The MCP tools a request offers, as `server:tool` (namespaced and flat `mcp__s__t` names). */
export function offeredMcpTools(offered: OfferedTools): string[] {
  const out: string[] = [];
  for (const [namespace, names] of offered.namespaces) {
    if (!namespace.startsWith("mcp__")) continue;
    for (const name of names) out.push(`${namespace.slice(5)}:${name}`);
  }
  for (const name of offered.functions) {
    const flat = /^mcp__(.+?)__(.+)$/.exec(name);
    if (flat) out.push(`${flat[1]}:${flat[2]}`);
  }
  return out.sort();
}

/** How to call `server:tool` given what the request offers, or `null` when it is not offered. */
export function toolExposure(
  offered: OfferedTools,
  server: string,
  tool: string,
): { namespace: string | null; name: string } | null {
  for (const candidate of new Set([server, sanitize(server)])) {
    const names = offered.namespaces.get(`mcp__${candidate}`);
    if (names === undefined) continue;
    for (const name of new Set([tool, sanitize(tool)])) {
      if (names.has(name)) return { namespace: `mcp__${candidate}`, name };
    }
  }
  for (const flat of [`mcp__${server}__${tool}`, `mcp__${sanitize(server)}__${sanitize(tool)}`]) {
    if (offered.functions.has(flat)) return { namespace: null, name: flat };
  }
  return null;
}

function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, "_");
}

function splitToolName(namespace: unknown, name: unknown): { server: string | null; tool: string } {
  const tool = typeof name === "string" ? name : "";
  if (typeof namespace === "string" && namespace.startsWith("mcp__")) {
    return { server: namespace.slice(5), tool };
  }
  const flat = /^mcp__(.+?)__(.+)$/.exec(tool);
  if (flat) return { server: flat[1] as string, tool: flat[2] as string };
  return { server: null, tool };
}

/** The role of a message item, or `undefined` for other items. */
export function messageRole(item: Record<string, unknown>): string | undefined {
  if (item.type !== undefined && item.type !== "message") return undefined;
  return typeof item.role === "string" ? item.role : undefined;
}

/** The text of a message item: its text parts joined by newlines. */
export function messageText(item: Record<string, unknown>): string {
  const content = item.content;
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

function parseJson(text: string): unknown {
  const trimmed = text.trim();
  if (!/^[[{"]/.test(trimmed)) return text;
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}
