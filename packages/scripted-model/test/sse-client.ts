/**
 * A plain HTTP client for the Responses streaming API, independent of the package under test:
 * node's fetch plus a small SSE reader.
 */

/** One SSE frame as received. */
export interface Frame {
  event: string | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test code reads arbitrary payloads
  data: any;
}

/** What a POST returned. */
export interface Reply {
  status: number;
  headers: Headers;
  /** The raw body text. */
  text: string;
  /** The SSE frames (empty for a non-stream body). */
  frames: Frame[];
  /** The `type` of every frame, in order. */
  types: string[];
  /** The body parsed as JSON, for a non-stream body. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test code reads arbitrary payloads
  json: any;
}

/** Splits an SSE body into frames. */
export function parseSse(text: string): Frame[] {
  return text
    .replace(/\r\n/g, "\n")
    .split("\n\n")
    .filter((block) => block.trim().length > 0)
    .map((block) => {
      let event: string | null = null;
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      return { event, data: JSON.parse(data.join("\n")) };
    });
}

/** POSTs a Responses request to `<baseUrl>/responses` and reads the whole answer. */
export async function postResponses(
  baseUrl: string,
  body: unknown,
  init: { signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const response = await fetch(`${baseUrl}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...init.headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal: init.signal,
  });
  const text = await response.text();
  const isStream = (response.headers.get("content-type") ?? "").includes("text/event-stream");
  const frames = isStream ? parseSse(text) : [];
  return {
    status: response.status,
    headers: response.headers,
    text,
    frames,
    types: frames.map((f) => String(f.data.type)),
    json: isStream ? undefined : JSON.parse(text),
  };
}

/** Reads a stream until `count` frames arrived, then aborts it; returns those frames. */
export async function readFirstFrames(
  baseUrl: string,
  body: unknown,
  count: number,
): Promise<Frame[]> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const frames = parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2));
      if (frames.length >= count) return frames;
      const { done, value } = await reader.read();
      if (done) return parseSse(text);
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    controller.abort();
  }
}
