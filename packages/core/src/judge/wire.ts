/**
 * The judge's request and the reading of its answer, per provider dialect: one forced call
 * of the `verdict` tool. Each dialect is a request builder and a reader of the answer into
 * the call's arguments (or null), any text, and the token usage when reported.
 */
import type { ProviderDialect } from "../harness/contract.js";
import {
  VERDICT_DESCRIPTION,
  VERDICT_PARAMETERS,
  VERDICT_TOOL,
  type JudgePrompt,
} from "./prompt.js";

/** An HTTP request to a judge's endpoint, without its credential. */
export interface JudgeRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Record<string, unknown>;
}

/** The judge's token usage, as its provider reported it. */
export interface JudgeUsage {
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
}

/** What a judge's answer held. */
export interface JudgeAnswer {
  /** The arguments of the `verdict` call, or null when the answer has none. */
  readonly verdict: unknown;
  /** Text the judge wrote besides (or instead of) the call. */
  readonly text: string;
  /** Other tools it called (never offered: a sign of a confused judge). */
  readonly otherCalls: readonly string[];
  readonly usage: JudgeUsage | null;
}

/** The body of a judge request in `dialect`, and where it goes under `baseUrl`. */
export function judgeRequest(
  dialect: ProviderDialect,
  baseUrl: string,
  model: string,
  prompt: JudgePrompt,
): JudgeRequest {
  const headers = { "content-type": "application/json" };
  switch (dialect) {
    case "responses":
      return {
        url: `${baseUrl}/responses`,
        headers,
        body: {
          model,
          instructions: prompt.system,
          input: [
            { type: "message", role: "user", content: [{ type: "input_text", text: prompt.user }] },
          ],
          tools: [
            {
              type: "function",
              name: VERDICT_TOOL,
              description: VERDICT_DESCRIPTION,
              parameters: VERDICT_PARAMETERS,
            },
          ],
          tool_choice: { type: "function", name: VERDICT_TOOL },
          store: false,
          stream: false,
        },
      };
    case "chat-completions":
      return {
        url: `${baseUrl}/chat/completions`,
        headers,
        body: {
          model,
          messages: [
            { role: "system", content: prompt.system },
            { role: "user", content: prompt.user },
          ],
          tools: [
            {
              type: "function",
              function: {
                name: VERDICT_TOOL,
                description: VERDICT_DESCRIPTION,
                parameters: VERDICT_PARAMETERS,
              },
            },
          ],
          tool_choice: { type: "function", function: { name: VERDICT_TOOL } },
          stream: false,
        },
      };
    case "anthropic-messages":
      return {
        url: `${baseUrl}/v1/messages`,
        headers: { ...headers, "anthropic-version": "2023-06-01" },
        body: {
          model,
          max_tokens: 1024,
          system: prompt.system,
          messages: [{ role: "user", content: prompt.user }],
          tools: [
            {
              name: VERDICT_TOOL,
              description: VERDICT_DESCRIPTION,
              input_schema: VERDICT_PARAMETERS,
            },
          ],
          tool_choice: { type: "tool", name: VERDICT_TOOL },
        },
      };
    case "gemini":
      return {
        url: `${baseUrl}/v1beta/models/${encodeURIComponent(model)}:generateContent`,
        headers,
        body: {
          systemInstruction: { parts: [{ text: prompt.system }] },
          contents: [{ role: "user", parts: [{ text: prompt.user }] }],
          tools: [
            {
              functionDeclarations: [
                {
                  name: VERDICT_TOOL,
                  description: VERDICT_DESCRIPTION,
                  parameters: VERDICT_PARAMETERS,
                },
              ],
            },
          ],
          toolConfig: {
            functionCallingConfig: { mode: "ANY", allowedFunctionNames: [VERDICT_TOOL] },
          },
        },
      };
  }
}

/** The headers that carry `key` in `dialect` (never logged, never recorded). */
export function credentialHeaders(dialect: ProviderDialect, key: string): Record<string, string> {
  switch (dialect) {
    case "responses":
    case "chat-completions":
      return { authorization: `Bearer ${key}` };
    case "anthropic-messages":
      return { "x-api-key": key };
    case "gemini":
      return { "x-goog-api-key": key };
  }
}

/**
 * Reads a judge's answer. `body` is the parsed JSON body, or for a Responses stream the
 * list of its events' data.
 *
 * @throws Error when the body is not the dialect's shape (the caller says so).
 */
export function readJudgeAnswer(dialect: ProviderDialect, body: unknown): JudgeAnswer {
  const calls: { name: string; args: unknown }[] = [];
  const text: string[] = [];
  let usage: JudgeUsage | null = null;
  switch (dialect) {
    case "responses": {
      const events = Array.isArray(body) ? body : [{ type: "response.completed", response: body }];
      const items: unknown[] = [];
      for (const event of events.map(record)) {
        if (event.type === "response.output_item.done") items.push(event.item);
        if (event.type === "response.completed" || event.type === "response.failed") {
          const response = record(event.response);
          if (!Array.isArray(body)) items.push(...array(response.output));
          usage = tokens(record(response.usage), "input_tokens", "output_tokens");
          if (event.type === "response.failed") text.push(String(record(response.error).message));
        }
      }
      if (items.length === 0 && !Array.isArray(body) && !("output" in record(body))) {
        throw new Error("a Responses answer has an output list");
      }
      for (const item of items.map(record)) {
        if (item.type === "function_call") {
          calls.push({ name: String(item.name), args: parseArgs(item.arguments) });
        } else if (item.type === "message") {
          for (const part of array(item.content).map(record)) {
            if (typeof part.text === "string") text.push(part.text);
          }
        }
      }
      break;
    }
    case "chat-completions": {
      const choices = array(record(body).choices);
      if (choices.length === 0) throw new Error("a Chat Completions answer has a choices list");
      const message = record(record(choices[0]).message);
      if (typeof message.content === "string") text.push(message.content);
      for (const call of array(message.tool_calls).map(record)) {
        const fn = record(call.function);
        calls.push({ name: String(fn.name), args: parseArgs(fn.arguments) });
      }
      usage = tokens(record(record(body).usage), "prompt_tokens", "completion_tokens");
      break;
    }
    case "anthropic-messages": {
      const content = record(body).content;
      if (!Array.isArray(content))
        throw new Error("an Anthropic Messages answer has a content list");
      for (const block of content.map(record)) {
        if (block.type === "tool_use") calls.push({ name: String(block.name), args: block.input });
        if (block.type === "text" && typeof block.text === "string") text.push(block.text);
      }
      usage = tokens(record(record(body).usage), "input_tokens", "output_tokens");
      break;
    }
    case "gemini": {
      const candidates = array(record(body).candidates);
      if (candidates.length === 0) throw new Error("a Gemini API answer has a candidates list");
      for (const part of array(record(record(candidates[0]).content).parts).map(record)) {
        const call = record(part.functionCall);
        if (typeof call.name === "string") calls.push({ name: call.name, args: call.args ?? {} });
        if (typeof part.text === "string") text.push(part.text);
      }
      usage = tokens(
        record(record(body).usageMetadata),
        "promptTokenCount",
        "candidatesTokenCount",
      );
      break;
    }
  }
  const verdict = calls.find((call) => call.name === VERDICT_TOOL);
  return {
    verdict: verdict === undefined ? null : verdict.args,
    text: text.join("\n"),
    otherCalls: calls.filter((call) => call.name !== VERDICT_TOOL).map((call) => call.name),
    usage,
  };
}

/** The data of each event of a Server-Sent Events body. */
export function sseData(text: string): unknown[] {
  const out: unknown[] = [];
  for (const frame of text.split(/\r?\n\r?\n/)) {
    const data = frame
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart())
      .join("\n");
    if (data === "" || data === "[DONE]") continue;
    try {
      out.push(JSON.parse(data) as unknown);
    } catch {
      // A frame that is not JSON carries nothing a verdict needs.
    }
  }
  return out;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function array(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

function parseArgs(value: unknown): unknown {
  if (typeof value !== "string") return value ?? null;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function tokens(usage: Record<string, unknown>, input: string, output: string): JudgeUsage | null {
  const read = (key: string) => (typeof usage[key] === "number" ? (usage[key] as number) : null);
  const inputTokens = read(input);
  const outputTokens = read(output);
  return inputTokens === null && outputTokens === null ? null : { inputTokens, outputTokens };
}
