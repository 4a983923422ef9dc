import {
  isUnavailable,
  MCPTestKit,
  OperationTimeout,
  ServerStartError,
  TransportError,
} from "@jest-m3/core";
import { closeAndExpectNoProcessLeft, isRunning } from "./support/processes";
import { faultServer } from "./support/servers";

describe("DirectClient faults", () => {
  let kit: MCPTestKit;
  beforeEach(() => {
    kit = new MCPTestKit({ env: {}, killGraceMs: 300 });
  });
  afterEach(async () => {
    await closeAndExpectNoProcessLeft(kit);
  });

  test("an unknown command is a ServerStartError that names the command", async () => {
    const client = kit.direct({ name: "ghost", command: "m3-no-such-command-xyz" });
    const error = await client.listTools().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ServerStartError);
    expect((error as ServerStartError).message).toContain('Server "ghost" failed to start');
    expect((error as ServerStartError).message).toContain(
      'command "m3-no-such-command-xyz" was not found',
    );
    expect((error as ServerStartError).server).toBe("ghost");
  });

  test("a server that exits at once: the error carries its exit code and stderr tail", async () => {
    const client = kit.direct(faultServer("--exit-at-start", "3"));
    const error = (await client
      .initialize()
      .catch((caught: unknown) => caught)) as ServerStartError;
    expect(error).toBeInstanceOf(ServerStartError);
    expect(error.exitCode).toBe(3);
    expect(error.stderrTail).toContain("fatal: cannot open database /nonexistent/db.sqlite");
    expect(error.message).toMatch(/exited during the MCP handshake \(code 3\)/);
    expect(error.message).toContain("--- stderr (last lines) ---");
  });

  test("garbage on stdout is recorded as malformed, and the client keeps working", async () => {
    const client = kit.direct(faultServer("--garbage"));
    const result = await client.callTool("echo", { text: "still alive" });
    expect(result.content).toEqual([{ type: "text", text: "still alive" }]);
    const malformed = client.trace.messages.filter((entry) => entry.kind === "malformed");
    expect(malformed.map((entry) => entry.raw)).toEqual([
      "this is not json",
      '{"json":"but not json-rpc"}',
    ]);
    expect(malformed[0]?.problem).toMatch(/not JSON/);
    expect(malformed[1]?.problem).toMatch(/not a JSON-RPC 2.0 message/);
    expect(malformed.every((entry) => entry.direction === "from_server")).toBe(true);
    expect(client.trace.events.filter((event) => event.kind === "malformed")).toHaveLength(2);
  });

  test("a server that ignores SIGTERM is gone after close (SIGKILL after the grace period)", async () => {
    const client = kit.direct(faultServer("--ignore-sigterm"));
    await client.ping();
    const pid = client.pid!;
    expect(isRunning(pid)).toBe(true);
    const seen = kit.processes;
    const started = Date.now();
    await closeAndExpectNoProcessLeft(kit, seen);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(isRunning(pid)).toBe(false);
  });

  test("a call past its timeout throws OperationTimeout and is recorded timed_out", async () => {
    const client = kit.direct(faultServer());
    const error = await client
      .callTool("sleep", { ms: 5_000 }, { timeoutMs: 200 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OperationTimeout);
    expect((error as OperationTimeout).timeoutMs).toBe(200);
    expect((error as Error).message).toContain('tools/call "sleep" did not finish within 200 ms');
    const [call] = client.trace.toolCalls;
    expect(call?.status).toBe("timed_out");
    expect(isUnavailable(call?.result)).toBe(true);
    expect(call?.latencyMs).toBeGreaterThanOrEqual(190);
    // The client told the server it gave up.
    const cancel = client.trace.messages.find(
      (entry) =>
        (entry.message as { method?: string } | undefined)?.method === "notifications/cancelled",
    );
    expect(cancel?.direction).toBe("to_server");
    // The connection is still usable after a timeout.
    expect((await client.callTool("echo", { text: "next" })).content).toEqual([
      { type: "text", text: "next" },
    ]);
  });

  test("a server that crashes mid-call: TransportError with stderr, the call transport_error, earlier evidence kept", async () => {
    const client = kit.direct(faultServer());
    await client.callTool("echo", { text: "before" });
    const error = (await client
      .callTool("crash")
      .catch((caught: unknown) => caught)) as TransportError;
    expect(error).toBeInstanceOf(TransportError);
    expect(error.message).toMatch(/the server process exited \(code 7\)/);
    expect(error.stderrTail).toContain("segfault in quote engine");
    const calls = client.trace.toolCalls;
    expect(calls.map((call) => [call.tool, call.status])).toEqual([
      ["echo", "success"],
      ["crash", "transport_error"],
    ]);
    expect(calls[1]?.result).toEqual({
      unavailable: true,
      reason: "the server process exited (code 7)",
    });
    expect(client.trace.events.map((event) => event.kind)).toEqual(
      expect.arrayContaining(["process_exit", "closed"]),
    );
    await expect(client.ping()).rejects.toBeInstanceOf(TransportError);
  });

  test("a result of several megabytes arrives whole", async () => {
    const client = kit.direct(faultServer());
    const result = await client.callTool("big", { bytes: 5 * 1024 * 1024 });
    expect((result.content as Array<{ text: string }>)[0]?.text.length).toBe(5 * 1024 * 1024);
    expect(client.trace.toolCalls[0]?.status).toBe("success");
  });

  test("a call still waiting when the test closes is incomplete, not a success", async () => {
    const client = kit.direct(faultServer());
    await client.ping();
    const pending = client.callTool("sleep", { ms: 10_000 }).catch((caught: unknown) => caught);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await client.close();
    expect(await pending).toBeInstanceOf(TransportError);
    const [call] = client.finalTrace.toolCalls;
    expect(call?.status).toBe("incomplete");
    expect(call?.result).toEqual({
      unavailable: true,
      reason: "the test closed the connection before a response arrived",
    });
  });
});
