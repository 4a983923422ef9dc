import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isUnavailable, MCPTestKit, type Trace } from "@jest-m3/core";
import { TraceRecorder, type Observation } from "../dist/evidence/recorder.js";
import { closeAndExpectNoProcessLeft } from "./support/processes";
import { faultServer } from "./support/servers";

// A stdio direct client's recording keeps each message as the text that crossed the wire and
// parses it when the trace is first read (issue 36: the parsed objects, kept, cost every
// young-generation collection a copy). The trace must read exactly as if every message had
// been kept parsed: these tests hold the two ways to the same trace, message by message.

const where: Observation = { server: "s", connection: "s#1" };
const decode = (text: string) => JSON.parse(text) as JSONRPCMessage;
const asText: Observation = { ...where, decode };

/** Records each message into both recorders: one kept parsed, one kept as its text. */
function recordBoth(
  steps: ReadonlyArray<
    | { readonly direction: "to_server" | "from_server"; readonly message: object }
    | { readonly malformed: string }
  >,
): { parsed: TraceRecorder; text: TraceRecorder } {
  const parsed = new TraceRecorder();
  const text = new TraceRecorder();
  steps.forEach((step, index) => {
    const at = 1_000 + index * 2.5;
    if ("malformed" in step) {
      parsed.recordMalformed("from_server", step.malformed, "not JSON", { ...where, at });
      text.recordMalformed("from_server", step.malformed, "not JSON", { ...asText, at });
      return;
    }
    const message = step.message as JSONRPCMessage;
    parsed.record(step.direction, message, { ...where, at });
    text.record(step.direction, message, { ...asText, at }, JSON.stringify(message));
  });
  return { parsed, text };
}

const call = (id: number, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "echo", arguments: args },
});
const answer = (id: number, result: Record<string, unknown>) => ({ jsonrpc: "2.0", id, result });

describe("direct client: messages kept as wire text, parsed when the trace is read", () => {
  test("the recorder reads the same trace from text as from parsed messages", () => {
    const { parsed, text } = recordBoth(
      [
        call(1, { text: "é ✓ 𝄞" }), // multi-byte UTF-8: each text's bytes end where they should
        { malformed: "this is not json" },
        answer(1, { content: [{ type: "text", text: "é ✓ 𝄞" }] }),
        call(2, { text: "two" }),
        call(3, { text: "three" }),
        answer(3, { content: [], isError: true }),
        {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: 1, progress: 1 },
        },
        answer(2, { content: [{ type: "text", text: "two" }], structuredContent: { n: 2 } }),
        call(4, { text: "four" }),
        { jsonrpc: "2.0", id: 4, error: { code: -32601, message: "no such tool" } },
        call(5, { text: "five" }),
        answer(5, {}),
        call(6, {}),
      ].map((step) =>
        "malformed" in step
          ? step
          : {
              direction: "method" in step && "id" in step ? "to_server" : "from_server",
              message: step,
            },
      ) as Parameters<typeof recordBoth>[0],
    );
    const expected = parsed.snapshot();
    expect(expected.toolCalls.map((c) => c.status)).toEqual([
      "success",
      "success",
      "tool_error",
      "protocol_error",
      "success",
      "incomplete",
    ]);
    expect(text.snapshot()).toEqual(expected);
    // Read again after more traffic: what was read stays, the rest reads the same too.
    const last = answer(6, { content: [] }) as JSONRPCMessage;
    parsed.record("from_server", last, { ...where, at: 2_000 });
    text.record("from_server", last, { ...asText, at: 2_000 }, JSON.stringify(last));
    const again = text.snapshot();
    expect(again).toEqual(parsed.snapshot());
    expect(again.messages.slice(0, expected.messages.length)).toEqual(expected.messages);
    expect(again.toolCalls[5]).toEqual(
      expect.objectContaining({ id: "call-6", status: "success", result: { content: [] } }),
    );
  });

  test("kept as text, a message reads as it crossed, not as its object became later", () => {
    const recorder = new TraceRecorder();
    const request = call(1, { text: "sent" }) as JSONRPCMessage & {
      params: { arguments: Record<string, unknown> };
    };
    const response = answer(1, { content: [{ type: "text", text: "sent" }] }) as unknown as {
      result: { content: unknown[] };
    };
    recorder.record("to_server", request, asText, JSON.stringify(request));
    recorder.record(
      "from_server",
      response as unknown as JSONRPCMessage,
      asText,
      JSON.stringify(response),
    );
    // Objects changed after they crossed (a hook, a test): the trace holds what was sent.
    response.result.content.push({ type: "text", text: "added later" });
    const trace = recorder.snapshot();
    expect(trace.messages.map((entry) => entry.message)).toEqual([
      call(1, { text: "sent" }),
      answer(1, { content: [{ type: "text", text: "sent" }] }),
    ]);
    expect(trace.toolCalls[0]!.result).toEqual({ content: [{ type: "text", text: "sent" }] });
    expect(trace.toolCalls[0]!.result).toBe(
      (trace.messages[1]!.message as { result: unknown }).result,
    );
  });

  test("the call an operation sent, asked by its tag after the answer, has its result", () => {
    const recorder = new TraceRecorder();
    const tag = {};
    const request = call(1, {}) as JSONRPCMessage;
    recorder.record("to_server", request, { ...asText, tag }, JSON.stringify(request));
    const text = JSON.stringify(answer(1, { content: [{ type: "text", text: "ok" }] }));
    recorder.record("from_server", JSON.parse(text) as JSONRPCMessage, asText, text);
    expect(recorder.callFor(tag)).toEqual(
      expect.objectContaining({
        id: "call-1",
        status: "success",
        result: { content: [{ type: "text", text: "ok" }] },
      }),
    );
    // A timeout decided after the answer changes nothing.
    recorder.settleTagged(tag, "timed_out", "late");
    expect(recorder.snapshot().toolCalls[0]!.status).toBe("success");
  });

  test("an answer recorded soon is recorded at the time it came, in its turn, as kept, before what follows", () => {
    const recorder = new TraceRecorder();
    recorder.setTurn("turn-1");
    const sent = (id: number, text: string, at: number) => {
      const message = call(id, { text }) as JSONRPCMessage;
      recorder.record("to_server", message, { ...asText, at }, JSON.stringify(message));
    };
    sent(1, "hush", 10);
    const answered = answer(1, { content: [{ type: "text", text: "hush" }] }) as JSONRPCMessage;
    const hush = (message: JSONRPCMessage) =>
      JSON.parse(JSON.stringify(message).replaceAll("hush", "[redacted]")) as JSONRPCMessage;
    recorder.recordSoon(
      "from_server",
      answered,
      { ...asText, at: 12 },
      JSON.stringify(answered),
      hush,
    );
    // The turn changes before anything reads: the answer still belongs to the first turn.
    recorder.setTurn("turn-2");
    sent(2, "two", 20);
    const trace = recorder.snapshot();
    expect(
      trace.messages.map((entry) => [entry.seq, entry.direction, entry.at, entry.turnId]),
    ).toEqual([
      [0, "to_server", 10, "turn-1"],
      [1, "from_server", 12, "turn-1"],
      [2, "to_server", 20, "turn-2"],
    ]);
    expect(JSON.stringify(trace.messages[1]!.message)).not.toContain("hush");
    expect(trace.toolCalls[0]).toMatchObject({ status: "success", endedAt: 12, turnId: "turn-1" });
    expect(JSON.stringify(trace.toolCalls[0]!.result)).not.toContain("hush");
  });

  test("a real stdio client records a call at the times its request left and its answer came", async () => {
    const kit = new MCPTestKit({ env: {} });
    try {
      const client = kit.direct(faultServer("--garbage"));
      await client.initialize();
      const before = performance.timeOrigin + performance.now();
      await client.callTool("echo", { text: "timed" });
      const after = performance.timeOrigin + performance.now();
      // Read well after the call: the times are the wire's, not the reading's.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const recorded = client.trace.toolCalls.find((entry) => entry.tool === "echo")!;
      expect(recorded.status).toBe("success");
      expect(recorded.startedAt as number).toBeGreaterThanOrEqual(before);
      expect(recorded.endedAt as number).toBeGreaterThanOrEqual(recorded.startedAt as number);
      expect(recorded.endedAt as number).toBeLessThanOrEqual(after);
    } finally {
      await closeAndExpectNoProcessLeft(kit);
    }
  });

  test("a real stdio client: every call and message in order, read mid-way and at the end", async () => {
    const kit = new MCPTestKit({ env: {} });
    try {
      const client = kit.direct(faultServer("--garbage"));
      const texts = Array.from({ length: 40 }, (_, index) => `call ${index} é ✓ 𝄞`);
      const results = [];
      let midway: Trace | undefined;
      for (const [index, text] of texts.entries()) {
        results.push(await client.callTool("echo", { text }));
        if (index === 19) midway = client.trace;
      }
      const failed = await client.callTool("no-such-tool", {});
      expect(failed.isError).toBe(true);
      const trace = client.trace;
      expect(trace.messages.map((entry) => entry.seq)).toEqual(trace.messages.map((_, i) => i));
      // The garbage lines the server wrote before serving, where they came.
      expect(trace.messages.filter((entry) => entry.kind === "malformed")).toHaveLength(2);
      const calls = trace.toolCalls;
      expect(calls.map((c) => c.id)).toEqual(calls.map((_, i) => `call-${i + 1}`));
      expect(calls.map((c) => c.status)).toEqual([...texts.map(() => "success"), "tool_error"]);
      for (const [index, text] of texts.entries()) {
        const recorded = calls[index]!;
        expect(recorded.arguments).toEqual({ text });
        expect(recorded.result).toEqual({ content: [{ type: "text", text }] });
        expect(recorded.result).toEqual(results[index]);
        expect(recorded.latencyMs).toBe(
          (recorded.endedAt as number) - (recorded.startedAt as number),
        );
        const response = trace.messages.find(
          (entry) =>
            entry.direction === "from_server" &&
            (entry.message as { id?: unknown } | undefined)?.id === recorded.jsonrpcId,
        );
        expect(response?.at).toBe(recorded.endedAt);
        expect((response?.message as { result?: unknown }).result).toBe(recorded.result);
      }
      const requests = trace.messages.filter(
        (entry) =>
          entry.direction === "to_server" &&
          (entry.message as { method?: unknown }).method === "tools/call",
      );
      expect(
        requests.map((entry) => (entry.message as unknown as { params: unknown }).params),
      ).toEqual([
        ...texts.map((text) => ({ name: "echo", arguments: { text } })),
        { name: "no-such-tool", arguments: {} },
      ]);
      // Read mid-way, the trace was what the end holds of those first messages and calls.
      expect(midway!.messages).toEqual(trace.messages.slice(0, midway!.messages.length));
      expect(midway!.toolCalls).toEqual(calls.slice(0, 20));
      expect(isUnavailable(calls[0]!.result)).toBe(false);
    } finally {
      await closeAndExpectNoProcessLeft(kit);
    }
  });
});
