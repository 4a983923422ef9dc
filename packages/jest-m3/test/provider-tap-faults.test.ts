// The provider tap in front of a loopback vendor endpoint, as a live run goes (tap →
// vendor → scripted model), in every dialect: the client gets exactly the bytes the vendor
// sent (a streamed answer, a 429 with its retry-after, a stream cut mid-way), and the tap
// records each with its status, usage and whether it completed. Closing the tap ends what
// is still open. Plus the added latency per request against talking to the vendor directly.
import { request } from "node:http";
import { ProviderTap, isUnavailable } from "jest-m3";
import type { ProviderDialect } from "@jest-m3/core/harness";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { startVendor } from "./support/model-side";

/** The route and body of one main request in each dialect. */
const REQUESTS: Record<ProviderDialect, (text: string) => { path: string; body: unknown }> = {
  responses: (text) => ({
    path: "/responses",
    body: { model: "m", stream: true, input: [{ role: "user", content: text }] },
  }),
  "chat-completions": (text) => ({
    path: "/chat/completions",
    body: {
      model: "m",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: text }],
    },
  }),
  "anthropic-messages": (text) => ({
    path: "/v1/messages",
    body: {
      model: "m",
      stream: true,
      max_tokens: 100,
      messages: [{ role: "user", content: text }],
    },
  }),
  gemini: (text) => ({
    path: "/v1beta/models/m:streamGenerateContent?alt=sse",
    body: { contents: [{ role: "user", parts: [{ text }] }] },
  }),
};

/** Posts through `baseUrl`; resolves with the status and the bytes received, even when cut. */
function post(
  baseUrl: string,
  path: string,
  body: unknown,
): Promise<{ status: number; text: string; cut: boolean; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${baseUrl}${path}`,
      {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer sk-m3-fault-key" },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        const done = (cut: boolean) =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString("utf8"),
            cut,
            headers: res.headers,
          });
        res.on("end", () => done(false));
        res.on("aborted", () => done(true));
        res.on("error", () => done(true));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

let model: ScriptedModel;
// A fault step answers once per model: each test gets its own.
beforeEach(async () => {
  model = await startScriptedModel({
    rules: [
      { name: "hello", when: { user: "hello" }, steps: [{ reply: "Hello there." }] },
      { name: "busy", when: { user: "busy" }, steps: [{ http: 429 }] },
      { name: "cut", when: { user: "cut" }, steps: [{ cut: true }] },
    ],
  });
});
afterEach(() => model.close());

describe.each(["responses", "chat-completions", "anthropic-messages", "gemini"] as const)(
  "%s",
  (dialect) => {
    test("the client gets the vendor's bytes exactly; the tap records status, usage, completeness", async () => {
      const vendor = await startVendor(model.providerFor(dialect));
      const tap = await ProviderTap.start(vendor.provider);
      try {
        tap.beginTurn("turn-1");
        const answers = [];
        for (const text of ["hello", "busy", "cut"]) {
          const { path, body } = REQUESTS[dialect](text);
          answers.push(await post(tap.provider.baseUrl, path, body));
        }
        const records = await tap.endTurn();
        expect(records.map((r) => [r.status, r.response.complete])).toEqual([
          [200, true],
          [429, false],
          [200, false],
        ]);
        // What the client got through the tap is what the vendor sent, byte for byte.
        expect(answers.map((a) => a.text)).toEqual(vendor.seen.map((s) => s.answer));
        expect(answers.map((a) => a.status)).toEqual([200, 429, 200]);
        expect(answers[1]!.headers["retry-after"]).toBe("1");
        expect(records.map((r) => r.request.sha256)).toEqual(vendor.seen.map((s) => s.sha256));
        // The key was forwarded (the vendor got it) and only the header's name is recorded.
        expect(vendor.seen[0]!.headers.authorization).toBe("Bearer sk-m3-fault-key");
        expect(JSON.stringify(records)).not.toContain("sk-m3-fault-key");
        expect(records[0]!.headerNames).toContain("authorization");
        // Usage of the complete answer; none for the 429.
        expect(isUnavailable(records[0]!.usage)).toBe(false);
        expect(isUnavailable(records[1]!.usage)).toBe(true);
        expect(records.every((r) => r.turnId === "turn-1" && r.generation)).toBe(true);
      } finally {
        await tap.close();
        await vendor.close();
      }
    });
  },
);

// The tap's added latency and memory are measured by bench/provider-tap.ts (`npm run bench`),
// against the vendor directly in the same run: a benchmark, not a timed test.
