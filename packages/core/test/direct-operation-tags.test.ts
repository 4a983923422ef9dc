import { isUnavailable, MCPTestKit, OperationTimeout } from "@jest-m3/core";
import { mockServer } from "@jest-m3/core/testing";
import { closeAndExpectNoProcessLeft } from "./support/processes";
import { faultServer } from "./support/servers";

// The direct client ties each request to the operation that sent it (a timeout settles that
// call, progress goes to that call's callback). The tie is made while the SDK sends, not
// through async context any more (issue 36): these tests hold it with calls in flight at
// once, where a tie to the wrong operation would show.

const counter = () =>
  mockServer({
    name: "counter",
    tools: [
      {
        name: "count",
        inputSchema: { type: "object", properties: { to: { type: "number" } } },
        handler: async ({ to }, context) => {
          for (let step = 1; step <= Number(to); step++) {
            await context.progress(step, Number(to), `${String(to)}:${step}`);
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          return `counted to ${String(to)}`;
        },
      },
    ],
  });

describe("direct client: each request tied to its own operation", () => {
  test("concurrent calls: only the call that timed out is recorded timed_out", async () => {
    const kit = new MCPTestKit({ env: {}, killGraceMs: 300 });
    try {
      const client = kit.direct(faultServer());
      await client.initialize();
      const [slow, ...quick] = await Promise.allSettled([
        client.callTool("sleep", { ms: 5_000 }, { timeoutMs: 300 }),
        client.callTool("echo", { text: "one" }),
        client.callTool("echo", { text: "two" }),
        client.callTool("echo", { text: "three" }),
      ]);
      expect(slow.status).toBe("rejected");
      expect((slow as PromiseRejectedResult).reason).toBeInstanceOf(OperationTimeout);
      expect(quick.map((outcome) => outcome.status)).toEqual([
        "fulfilled",
        "fulfilled",
        "fulfilled",
      ]);
      const calls = client.trace.toolCalls;
      expect(calls.map((call) => [call.tool, call.status])).toEqual([
        ["sleep", "timed_out"],
        ["echo", "success"],
        ["echo", "success"],
        ["echo", "success"],
      ]);
      expect(isUnavailable(calls[0]!.result)).toBe(true);
      // A call after the timeout is tied to nothing left over from it.
      await client.callTool("echo", { text: "after" });
      expect(client.trace.toolCalls.at(-1)?.status).toBe("success");
      expect(client.trace.toolCalls[0]?.status).toBe("timed_out");
    } finally {
      await closeAndExpectNoProcessLeft(kit);
    }
  });

  test("concurrent calls with onProgress: each callback sees only its own call's progress", async () => {
    await using mock = counter();
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct(await mock.stdio());
    const seen = new Map<number, string[]>([
      [2, []],
      [3, []],
      [4, []],
    ]);
    const results = await Promise.all(
      [2, 3, 4].map((to) =>
        client.callTool(
          "count",
          { to },
          { onProgress: (progress) => seen.get(to)!.push(String(progress.message)) },
        ),
      ),
    );
    expect(results.map((result) => result.content)).toEqual([
      [{ type: "text", text: "counted to 2" }],
      [{ type: "text", text: "counted to 3" }],
      [{ type: "text", text: "counted to 4" }],
    ]);
    expect(Object.fromEntries(seen)).toEqual({
      2: ["2:1", "2:2"],
      3: ["3:1", "3:2", "3:3"],
      4: ["4:1", "4:2", "4:3", "4:4"],
    });
    // The wire agrees: every progress notification names a token one of the requests sent.
    const tokens = client.trace.messages
      .filter((entry) => entry.direction === "to_server" && entry.kind === "request")
      .map((entry) => entry.message as { method: string; params?: { _meta?: unknown } })
      .filter((message) => message.method === "tools/call")
      .map((message) => (message.params?._meta as { progressToken?: unknown }).progressToken);
    expect(new Set(tokens).size).toBe(3);
  });
});
