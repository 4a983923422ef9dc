/**
 * Request bodies shaped like the ones Codex 0.171 sends (developer instructions, an
 * `<environment_context>` user message, the user's prompt, tools as namespaces or behind
 * `tool_search`), for protocol tests without the binary.
 */

type Item = Record<string, unknown>;

/** A Codex-style namespace of MCP tools, `mcp__<server>`. */
export function namespaceTools(server: string, tools: string[]): Item {
  return {
    type: "namespace",
    name: `mcp__${server}`,
    description: `Tools in the mcp__${server} namespace.`,
    tools: tools.map((name) => ({
      type: "function",
      name,
      strict: false,
      parameters: { type: "object", properties: {} },
    })),
  };
}

/** The built-in tools Codex always offers (a few), which the scripted model must ignore. */
export const BUILTIN_TOOLS: Item[] = [
  { type: "function", name: "exec_command", parameters: { type: "object", properties: {} } },
  { type: "web_search" },
];

/** The `tool_search` tool Codex offers for catalog models. */
export const TOOL_SEARCH: Item = {
  type: "tool_search",
  execution: "client",
  parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
};

let counter = 0;
const id = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${(counter++).toString(36)}`;

/** A user message as Codex sends it (with a fresh id). */
export function userMessage(text: string): Item {
  return { type: "message", id: id("msg"), role: "user", content: [{ type: "input_text", text }] };
}

/** The context preamble Codex puts before the first prompt: instructions and environment. */
export function preamble(cwd = "/tmp/work-1", date = "2026-11-30"): Item[] {
  return [
    {
      type: "message",
      id: id("msg"),
      role: "developer",
      content: [
        { type: "input_text", text: `You are a coding agent. Skills live in ${cwd}/.codex.` },
      ],
    },
    {
      type: "message",
      id: id("msg"),
      role: "user",
      content: [
        {
          type: "input_text",
          text: `<environment_context>\n  <cwd>${cwd}</cwd>\n  <current_date>${date}</current_date>\n</environment_context>`,
        },
      ],
    },
  ];
}

/** The items Codex appends after the model called a tool and the tool answered. */
export function callAndOutput(
  call: { call_id: string; namespace?: string; name: string; arguments: string },
  output: unknown,
  wallTime = "0.0059",
): Item[] {
  return [
    { type: "function_call", status: "completed", id: id("fc"), ...call },
    {
      type: "function_call_output",
      id: id("fco"),
      call_id: call.call_id,
      output: `Wall time: ${wallTime} seconds\nOutput:\n${JSON.stringify(output)}`,
    },
  ];
}

/** A whole request body. */
export function requestBody(options: {
  input: Item[];
  tools?: Item[];
  model?: string;
  conversation?: string;
}): Record<string, unknown> {
  return {
    model: options.model ?? "scripted",
    stream: true,
    input: options.input,
    tools: options.tools ?? [...BUILTIN_TOOLS, namespaceTools("shipping", ["shipping_quote"])],
    tool_choice: "auto",
    parallel_tool_calls: true,
    store: false,
    prompt_cache_key: options.conversation ?? id("conv"),
    client_metadata: { turn_started_at_unix_ms: String(Date.now()) },
  };
}

/** The output items of a completed streamed response (from `response.completed`). */
export function outputItems(
  frames: { data: { type: string; response?: { output?: Item[] } } }[],
): Item[] {
  const completed = frames.find((f) => f.data.type === "response.completed");
  if (completed === undefined) throw new Error("the response did not complete");
  return completed.data.response?.output ?? [];
}

/** What Codex appends for a tool search it ran: the call and the namespaces it found. */
export function toolSearchOutput(searchCall: Item, found: Item[]): Item[] {
  return [
    { ...searchCall, id: id("tsc") },
    {
      type: "tool_search_output",
      id: id("tso"),
      call_id: searchCall.call_id,
      status: "completed",
      execution: "client",
      tools: found,
    },
  ];
}
