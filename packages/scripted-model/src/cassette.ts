/**
 * Cassettes: recorded model traffic (request fingerprints and the responses streamed back),
 * the fingerprints themselves, and the explanation of a replay mismatch.
 *
 * A fingerprint keeps what decides the model's answer and leaves out what changes from run to
 * run: ids and call ids, `prompt_cache_key`, `client_metadata`, developer/system instructions
 * (they hold temporary paths and dates), Codex's own context messages (`<environment_context>`
 * with cwd and date), reasoning items, the agent's built-in tools, tool descriptions and
 * schemas, `Wall time` figures in tool outputs, and whatever the `volatile` patterns match.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, resolve as resolvePath } from "node:path";
import {
  isContextualUserText,
  messageRole,
  messageText,
  toolOutputText,
  type NeutralRequest,
} from "./conversation";
import type { ProviderDialect, SidePurpose } from "./dialects/names";
import { InvalidCassette } from "./errors";
import type { SseEvent } from "./responses-stream";
import { describe, isPlainObject, type JsonRegExp } from "./script";

/** The `format` value every cassette carries. */
export const CASSETTE_FORMAT = "jest-m3.cassette";

/** The cassette version this package writes and reads. */
export const CASSETTE_VERSION = 1;

/** One conversation item as fingerprints see it. */
export type SummaryItem =
  | { user: string }
  | { assistant: string }
  | { call: string; arguments: unknown }
  | { output: string }
  | { tool_search: unknown }
  | { tool_search_output: string[] }
  | { item: string };

/** The stable part of a request: what its fingerprint is computed from. */
export interface RequestSummary {
  /** The last path segment, e.g. `responses`. */
  endpoint: string;
  model: string | null;
  /**
   * MCP tools offered (`mcp__server/tool`, or a flat `mcp__server__tool`) and `tool_search`;
   * the agent's built-in tools are left out so a new agent version does not break replay.
   */
  tools: string[];
  /** The conversation items that matter, in order. */
  input: SummaryItem[];
}

/** A recorded response. */
export interface RecordedResponse {
  /** The HTTP status the upstream sent. */
  status: number;
  /** The upstream's `content-type`. */
  contentType: string;
  /** The SSE events, for a streamed response. */
  events?: SseEvent[];
  /** The body text, for a response that is not a stream (e.g. an HTTP error). */
  body?: string;
  /** `false` when the stream ended before `response.completed` / `response.failed`. */
  complete: boolean;
  /** The upstream's `retry-after` header, when it sent one. */
  retryAfter?: string;
}

/** One recorded request/response pair. */
export interface Interaction {
  /** 1-based position in the cassette. */
  index: number;
  /** SHA-256 of the canonical JSON of `request`. */
  fingerprint: string;
  request: RequestSummary;
  response: RecordedResponse;
  /** Set when the request was a side request (title, routing, token count, …). */
  side?: SidePurpose;
}

/** A cassette file's content. */
export interface Cassette {
  format: typeof CASSETTE_FORMAT;
  version: typeof CASSETTE_VERSION;
  /**
   * The dialect it was recorded in; replaying it to a request of another dialect is an error.
   * Cassettes written before dialects existed have none and are `responses`.
   */
  dialect?: ProviderDialect;
  /** When the recording started (ISO 8601). */
  recordedAt: string;
  /** Where it was recorded from: a base URL and the NAME of the key variable, never its value. */
  upstream: { baseUrl: string; apiKeyEnv: string | null };
  /** Patterns whose matches were left out of fingerprints (replay uses them too). */
  volatile: JsonRegExp[];
  interactions: Interaction[];
}

const WALL_TIME_FIGURE = /^Wall time: [^\n]*$/gm;

/** Summarizes a request for fingerprinting. */
export function summarizeRequest(path: string, body: unknown, volatile: RegExp[]): RequestSummary {
  const clean = (text: string) =>
    volatile.reduce((t, pattern) => t.replace(globalCopy(pattern), "<volatile>"), text);
  const b = isPlainObject(body) ? body : {};
  const tools: string[] = [];
  for (const tool of Array.isArray(b.tools) ? b.tools : []) {
    if (!isPlainObject(tool)) continue;
    const name = typeof tool.name === "string" ? tool.name : "";
    if (tool.type === "tool_search") tools.push("tool_search");
    else if (!name.startsWith("mcp__")) continue;
    else if (tool.type === "namespace" && Array.isArray(tool.tools)) {
      for (const inner of tool.tools) {
        if (isPlainObject(inner)) tools.push(`${name}/${String(inner.name)}`);
      }
    } else tools.push(name);
  }
  const input: SummaryItem[] = [];
  for (const item of Array.isArray(b.input) ? b.input : []) {
    if (!isPlainObject(item)) continue;
    const role = messageRole(item);
    if (role !== undefined) {
      const text = messageText(item);
      if (role === "user" && !isContextualUserText(text)) input.push({ user: clean(text) });
      else if (role === "assistant") input.push({ assistant: clean(text) });
      continue;
    }
    switch (item.type) {
      case "function_call":
        input.push({
          call: `${typeof item.namespace === "string" ? `${item.namespace}/` : ""}${String(item.name)}`,
          arguments: parseMaybeJson(
            typeof item.arguments === "string" ? clean(item.arguments) : item.arguments,
          ),
        });
        break;
      case "custom_tool_call":
        input.push({
          call: String(item.name),
          arguments: typeof item.input === "string" ? clean(item.input) : null,
        });
        break;
      case "function_call_output":
      case "custom_tool_call_output":
        input.push({
          output: clean(
            toolOutputText(item.output).replace(WALL_TIME_FIGURE, "Wall time: <volatile>"),
          ),
        });
        break;
      case "tool_search_call":
        input.push({ tool_search: item.arguments ?? null });
        break;
      case "tool_search_output": {
        const names: string[] = [];
        for (const tool of Array.isArray(item.tools) ? item.tools : []) {
          if (!isPlainObject(tool)) continue;
          if (Array.isArray(tool.tools)) {
            for (const inner of tool.tools) {
              if (isPlainObject(inner)) names.push(`${String(tool.name)}/${String(inner.name)}`);
            }
          } else names.push(String(tool.name));
        }
        input.push({ tool_search_output: names.sort() });
        break;
      }
      case "reasoning":
        break;
      default:
        input.push({ item: String(item.type) });
    }
  }
  return {
    endpoint: path.split("?")[0]?.split("/").filter(Boolean).at(-1) ?? "",
    model: typeof b.model === "string" ? b.model : null,
    tools: tools.sort(),
    input,
  };
}

/**
 * Summarizes a request of any dialect but `responses` from its neutral form: the model, the
 * MCP-looking tools offered (`mcp__…`, `mcp_…`; every tool for Chat Completions), and the
 * conversation (agents' own context messages are already left out of it).
 */
export function summarizeNeutral(
  path: string,
  request: NeutralRequest,
  volatile: RegExp[],
): RequestSummary {
  const clean = (text: string) =>
    volatile.reduce((t, pattern) => t.replace(globalCopy(pattern), "<volatile>"), text);
  const everyTool = request.dialect === "chat-completions";
  const tools = [...request.offered.functions].filter(
    (name) => everyTool || name.startsWith("mcp_") || name === request.offered.searchTool,
  );
  const input: SummaryItem[] = request.items.map((item) => {
    switch (item.type) {
      case "user":
        return { user: clean(item.text) };
      case "assistant":
        return { assistant: clean(item.text) };
      case "call":
        return {
          call: item.name,
          arguments: parseMaybeJson(
            typeof item.arguments === "string" ? clean(item.arguments) : item.arguments,
          ),
        };
      case "result":
        return { output: clean(item.output) };
      case "search":
        return { tool_search: item.query };
      case "search_result":
        return { tool_search_output: item.names };
    }
  });
  return {
    endpoint: path.split("?")[0]?.split("/").filter(Boolean).at(-1) ?? "",
    model: request.model.length > 0 ? request.model : null,
    tools: tools.sort(),
    input,
  };
}

/** The fingerprint of a request summary: SHA-256 of its canonical JSON. */
export function fingerprint(summary: RequestSummary): string {
  return createHash("sha256").update(canonicalJson(summary)).digest("hex");
}

/** JSON with object keys sorted, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys
      .filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Says how `actual` differs from `expected`, one line per difference (at most `max`). */
export function describeDifferences(
  expected: RequestSummary,
  actual: RequestSummary,
  max = 3,
): string[] {
  const out: string[] = [];
  if (expected.endpoint !== actual.endpoint) {
    out.push(`endpoint: recorded ${expected.endpoint}, got ${actual.endpoint}`);
  }
  if (expected.model !== actual.model) {
    out.push(
      `model: recorded ${JSON.stringify(expected.model)}, got ${JSON.stringify(actual.model)}`,
    );
  }
  const missing = expected.tools.filter((t) => !actual.tools.includes(t));
  const extra = actual.tools.filter((t) => !expected.tools.includes(t));
  if (missing.length > 0 || extra.length > 0) {
    out.push(
      `tools: ${missing.length > 0 ? `no longer offered ${missing.join(", ")}` : ""}` +
        `${missing.length > 0 && extra.length > 0 ? "; " : ""}` +
        `${extra.length > 0 ? `newly offered ${extra.join(", ")}` : ""}`,
    );
  }
  const length = Math.max(expected.input.length, actual.input.length);
  for (let i = 0; i < length && out.length < max; i++) {
    const e = expected.input[i];
    const a = actual.input[i];
    if (e !== undefined && a !== undefined && canonicalJson(e) === canonicalJson(a)) continue;
    out.push(
      `conversation item ${i + 1}: recorded ${e === undefined ? "nothing" : shortJson(e)}, ` +
        `got ${a === undefined ? "nothing" : shortJson(a)}`,
    );
    if (e === undefined || a === undefined) break;
  }
  if (out.length === 0) out.push("no difference in the fingerprinted parts");
  return out.slice(0, max);
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length <= 240 ? text : `${text.slice(0, 239)}…`;
}

/**
 * Reads and checks a cassette file.
 *
 * @throws {@link InvalidCassette} naming the file when it is missing, not JSON, or not a cassette.
 */
export function loadCassette(file: string): Cassette {
  let text: string;
  try {
    text = readFileSync(resolvePath(file), "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidCassette(
      file,
      code === "ENOENT"
        ? "does not exist. Record it first with startRecordingModel, or fix the path."
        : `cannot be read (${describe(error)})`,
      { cause: error },
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new InvalidCassette(
      file,
      `is not a cassette: it is not valid JSON (${describe(error)})`,
      {
        cause: error,
      },
    );
  }
  const notCassette = (why: string) =>
    new InvalidCassette(
      file,
      `is not a cassette: ${why}. Cassettes are written by startRecordingModel.`,
    );
  if (!isPlainObject(data)) throw notCassette("it is not a JSON object");
  if (data.format !== CASSETTE_FORMAT) {
    throw notCassette(
      `"format" is ${JSON.stringify(data.format) ?? "missing"}, expected "${CASSETTE_FORMAT}"`,
    );
  }
  if (data.version !== CASSETTE_VERSION) {
    throw new InvalidCassette(
      file,
      `has version ${JSON.stringify(data.version)}; this package reads version ${CASSETTE_VERSION}. ` +
        `Record it again with this version.`,
    );
  }
  if (!Array.isArray(data.interactions)) throw notCassette(`"interactions" is not an array`);
  if (!Array.isArray(data.volatile)) throw notCassette(`"volatile" is not an array`);
  for (const [i, pattern] of data.volatile.entries()) {
    if (!isPlainObject(pattern) || typeof pattern.regex !== "string") {
      throw notCassette(`volatile[${i}] is not { regex, flags }`);
    }
    try {
      new RegExp(pattern.regex, typeof pattern.flags === "string" ? pattern.flags : "");
    } catch (error) {
      throw notCassette(`volatile[${i}] is not a valid regular expression (${describe(error)})`);
    }
  }
  data.interactions.forEach((interaction: unknown, i: number) => {
    const at = `interaction ${i + 1}`;
    if (!isPlainObject(interaction)) throw notCassette(`${at} is not an object`);
    if (typeof interaction.fingerprint !== "string")
      throw notCassette(`${at} has no "fingerprint"`);
    if (!isPlainObject(interaction.request) || !Array.isArray(interaction.request.input)) {
      throw notCassette(`${at} has no request summary`);
    }
    const response = interaction.response;
    if (!isPlainObject(response) || typeof response.status !== "number") {
      throw notCassette(`${at} has no response status`);
    }
    if (response.events !== undefined && !Array.isArray(response.events)) {
      throw notCassette(`${at} has "events" that are not an array`);
    }
  });
  if (!isPlainObject(data.upstream)) throw notCassette(`"upstream" is missing`);
  if (
    data.dialect !== undefined &&
    !["responses", "chat-completions", "anthropic-messages", "gemini"].includes(
      String(data.dialect),
    )
  ) {
    throw notCassette(
      `"dialect" is ${JSON.stringify(data.dialect)}, not a dialect this package speaks`,
    );
  }
  return data as unknown as Cassette;
}

/**
 * Writes a cassette atomically. When `secret` is given, any occurrence of it in the content is
 * replaced by `<redacted:NAME>` first, so a key an upstream echoes back is never stored.
 */
export function saveCassette(
  file: string,
  cassette: Cassette,
  secret?: { value: string; name: string },
): void {
  const path = resolvePath(file);
  mkdirSync(dirname(path), { recursive: true });
  let text = `${JSON.stringify(cassette, null, 2)}\n`;
  if (secret !== undefined && secret.value.length > 0) {
    text = text.split(secret.value).join(`<redacted:${secret.name}>`);
  }
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

/** Turns JSON regex descriptions into RegExps. */
export function toRegExps(patterns: JsonRegExp[]): RegExp[] {
  return patterns.map((p) => new RegExp(p.regex, p.flags ?? ""));
}

/** Turns RegExps or JSON regex descriptions into JSON regex descriptions. */
export function toJsonRegExps(patterns: (RegExp | JsonRegExp)[]): JsonRegExp[] {
  return patterns.map((p) => (p instanceof RegExp ? { regex: p.source, flags: p.flags } : p));
}

function globalCopy(pattern: RegExp): RegExp {
  return new RegExp(
    pattern.source,
    pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`,
  );
}

function parseMaybeJson(value: unknown): unknown {
  if (typeof value !== "string") return value ?? null;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
