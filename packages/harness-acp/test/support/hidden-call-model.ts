/**
 * A Chat Completions endpoint on loopback whose model calls a tool it was not offered, once
 * per conversation: what a real model does now and then, and what the scripted model never
 * does (it answers in words when a tool is not offered). Every request is kept, so a test
 * can see which tools the agent declared.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ModelProvider } from "@jest-m3/core/harness";

/** The endpoint, its provider, and the request bodies it got. */
export interface HiddenCallModel {
  readonly provider: ModelProvider;
  readonly requests: readonly Record<string, unknown>[];
  close(): Promise<void>;
}

function frame(delta: Record<string, unknown>, finish: string | null = null): string {
  const chunk = {
    id: "chatcmpl-hidden",
    object: "chat.completion.chunk",
    created: 0,
    model: "hidden-1",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

function answer(response: ServerResponse, frames: string[]): void {
  response.writeHead(200, { "content-type": "text/event-stream" });
  response.end([...frames, "data: [DONE]\n\n"].join(""));
}

async function body(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
}

/**
 * Starts the endpoint: a request without tools (a title) gets a title; the first request
 * with tools gets a call of `name` with `args`; one that carries a tool result gets `reply`.
 */
export async function startHiddenCallModel(
  name: string,
  args: Record<string, unknown>,
  reply = "Done.",
): Promise<HiddenCallModel> {
  const requests: Record<string, unknown>[] = [];
  const server = createServer((request, response) => {
    void body(request).then((parsed) => {
      requests.push(parsed);
      const messages = Array.isArray(parsed.messages)
        ? (parsed.messages as { role?: string }[])
        : [];
      if (!Array.isArray(parsed.tools) || parsed.tools.length === 0) {
        answer(response, [frame({ role: "assistant", content: "A title" }), frame({}, "stop")]);
      } else if (messages.some((message) => message.role === "tool")) {
        answer(response, [frame({ role: "assistant", content: reply }), frame({}, "stop")]);
      } else {
        answer(response, [
          frame({ role: "assistant", content: "" }),
          frame({
            tool_calls: [
              {
                index: 0,
                id: "call_hidden_1",
                type: "function",
                function: { name, arguments: JSON.stringify(args) },
              },
            ],
          }),
          frame({}, "tool_calls"),
        ]);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    provider: {
      name: "hidden",
      baseUrl: `http://127.0.0.1:${port}/v1`,
      wireApi: "chat-completions",
    },
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
