import { ClientClosed, InvalidArgument, MCPTestKit, NotificationTimeout } from "@jest-m3/core";
import { mockServer } from "@jest-m3/core/testing";

const chatty = () =>
  mockServer({
    name: "chatty",
    tools: [
      {
        name: "work",
        inputSchema: { type: "object", properties: { steps: { type: "number" } } },
        handler: async ({ steps }, context) => {
          for (let step = 1; step <= Number(steps); step++) {
            await context.log("info", `step ${step}`);
            await context.progress(step, Number(steps), `step ${step}`);
          }
          return "done";
        },
      },
    ],
  });

describe("notifications both ways", () => {
  test("streams: take(n), for await, includePast, and close", async () => {
    await using mock = chatty();
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct(await mock.stdio());
    const logs = client.listen("notifications/message", { timeoutMs: 5000 });
    await client.callTool("work", { steps: 3 });
    expect((await logs.take(2)).map((entry) => entry.params.data)).toEqual(["step 1", "step 2"]);
    const seen: unknown[] = [];
    for await (const entry of logs) {
      seen.push(entry.params.data);
      logs.close(); // ends the loop after what is queued
    }
    expect(seen).toEqual(["step 3"]);
    expect(logs.received).toHaveLength(3);
    await expect(logs.next()).rejects.toThrow(/closed notification stream/);

    const late = client.listen(["notifications/message", "notifications/progress"], {
      includePast: true,
    });
    // No onProgress, no progress token: the server sends no progress.
    expect(late.received.map((entry) => entry.method)).toEqual([
      "notifications/message",
      "notifications/message",
      "notifications/message",
    ]);
    expect(client.logMessages.map((entry) => [entry.level, entry.data])).toEqual([
      ["info", "step 1"],
      ["info", "step 2"],
      ["info", "step 3"],
    ]);
    await expect(client.listen("never/sent", { timeoutMs: 100 }).take(1)).rejects.toThrow(
      NotificationTimeout,
    );
    await expect(logs.take(-1)).rejects.toThrow(InvalidArgument);
    const waiting = client.listen("never/sent", { timeoutMs: 5000 }).next();
    await client.close();
    await expect(waiting).rejects.toThrow(ClientClosed);
  });

  test("progress with messages; client notifications and _meta on ping are on the wire", async () => {
    await using mock = chatty();
    await using kit = new MCPTestKit({ env: {} });
    const client = kit.direct(await mock.stdio(), { roots: [] });
    const progress: unknown[] = [];
    await client.callTool("work", { steps: 2 }, { onProgress: (entry) => progress.push(entry) });
    expect(progress).toEqual([
      { progress: 1, total: 2, message: "step 1" },
      { progress: 2, total: 2, message: "step 2" },
    ]);
    await client.sendNotification("notifications/custom/hello", { from: "test" });
    await client.sendProgress("server-token", 1, { total: 4, message: "a quarter" });
    await client.sendRootsListChanged();
    await client.ping({ meta: { origin: "test" } });
    const sent = client.trace.messages
      .filter((entry) => entry.direction === "to_server" && entry.kind !== "response")
      .map((entry) => entry.message as { method: string; params?: unknown });
    expect(sent).toEqual(
      expect.arrayContaining([
        { jsonrpc: "2.0", method: "notifications/custom/hello", params: { from: "test" } },
        {
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: { progressToken: "server-token", progress: 1, total: 4, message: "a quarter" },
        },
        { jsonrpc: "2.0", method: "notifications/roots/list_changed" },
        expect.objectContaining({ method: "ping", params: { _meta: { origin: "test" } } }),
      ]),
    );
    await expect(client.sendNotification("")).rejects.toThrow(/method must be a non-empty string/);
    await expect(client.sendProgress({} as never, 1)).rejects.toThrow(/progressToken/);
    await expect(client.setRoots("file:///x" as never)).rejects.toThrow(/array of \{ uri/);
  });
});
