/**
 * MCP servers with Codex: one that cannot start fails the session start with its name; one
 * that crashes during a call fails that call (on the wire and as reported) and leaves the
 * session usable; a Streamable HTTP server goes through the capture proxy.
 */
import { join } from "node:path";
import { createInterface } from "node:readline";
import { childEnvironment } from "@jest-m3/core/adapter-kit";
import { HarnessStartError } from "@jest-m3/core";
import codexHarness from "@jest-m3/harness-codex";
import type { CodexSession } from "../src/session";
import {
  callLog,
  codexLaunch,
  codexSelection,
  ledgerServer,
  REPO_ROOT,
  shippingServer,
  turnRequest,
} from "./support/codex";
import { perTestKit } from "@jest-m3/test-support";

describe("MCP servers with Codex", () => {
  const t = perTestKit({
    script: {
      rules: [
        {
          name: "crash",
          when: { user: "crash" },
          steps: [{ call: "ledger:crash", args: {} }, { reply: "The ledger crashed." }],
        },
        {
          name: "quote",
          when: { user: "quote" },
          steps: [
            { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
            { reply: "{{result.amount}}" },
          ],
        },
      ],
    },
    model: "each",
  });

  test("a server that fails to start fails open() with HarnessStartError naming it", async () => {
    const dir = await t.kit.tempDir("m3-log-");
    const { launch, capture } = await codexLaunch(t.kit, codexSelection(t.model.provider), [
      shippingServer(join(dir, "shipping.jsonl")),
      ledgerServer(join(dir, "ledger.jsonl"), ["--exit-at-start"]),
    ]);
    t.captures.push(capture);
    const opening = codexHarness.open(launch);
    await expect(opening).rejects.toBeInstanceOf(HarnessStartError);
    await expect(opening).rejects.toThrow(/MCP server "ledger" failed to start: .*ledger/);
    // The relay saw the real reason on the server's stderr.
    expect(capture.trace.events.map((event) => event.detail).join("\n")).toContain(
      "cannot open /nonexistent/ledger.db",
    );
    // Nothing of the failed start is left running, before the kit closes.
    expect(t.kit.processes).toEqual([]);
    expect(t.model.journal.entries).toEqual([]);
  });

  test("a server that crashes during a call: the call fails on the wire and as reported; the session goes on", async () => {
    const dir = await t.kit.tempDir("m3-log-");
    const { launch, capture, events } = await codexLaunch(t.kit, codexSelection(t.model.provider), [
      shippingServer(join(dir, "shipping.jsonl")),
      ledgerServer(join(dir, "ledger.jsonl")),
    ]);
    t.captures.push(capture);
    const session = (await codexHarness.open(launch)) as CodexSession;
    t.pids.push(session.pid as number);

    capture.beginTurn("turn-1");
    const crashed = await session.send(turnRequest("Please crash the ledger.", "turn-1").request);
    await capture.endTurn();
    expect(crashed.outcome).toBe("completed");
    expect(crashed.response?.text).toBe("The ledger crashed.");
    expect(crashed.toolCalls).toEqual([
      expect.objectContaining({
        server: "ledger",
        tool: "crash",
        status: "transport_error",
        error: expect.stringMatching(/Transport closed/),
      }),
    ]);
    expect(
      capture.trace.toolCalls.map((call) => ({ tool: call.tool, status: call.status })),
    ).toEqual([{ tool: "crash", status: "transport_error" }]);
    expect(callLog(join(dir, "ledger.jsonl"))).toEqual([{ tool: "crash", arguments: {} }]);
    expect(events).toContainEqual({
      kind: "approval",
      detail: "accepted ledger:crash (in the session's allow-list)",
    });

    capture.beginTurn("turn-2");
    const next = await session.send(turnRequest("Please quote.", "turn-2").request);
    await capture.endTurn();
    expect([next.outcome, next.response?.text]).toEqual(["completed", "9"]);
    expect(session.health().alive).toBe(true);
  });

  test("a Streamable HTTP server is reached through the capture proxy, with evidence on both sides", async () => {
    const dir = await t.kit.tempDir("m3-log-");
    const log = join(dir, "shipping.jsonl");
    const http = t.kit.spawn({
      label: "shipping (http)",
      command: process.execPath,
      args: [join(REPO_ROOT, "examples/shipping/shipping-server.mjs"), "--http"],
      env: childEnvironment({ SHIPPING_CALL_LOG: log }),
      cwd: REPO_ROOT,
    });
    const url = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: http.child.stdout });
      lines.on("line", (line) => {
        if (line.startsWith("listening ")) resolve(line.slice("listening ".length).trim());
      });
      void http.exited.then(() =>
        reject(new Error(`the HTTP server exited: ${http.stderrTail()}`)),
      );
    });
    const { launch, capture } = await codexLaunch(
      t.kit,
      codexSelection(t.model.provider),
      [{ name: "shipping", url }],
      ["shipping:shipping_quote"],
    );
    t.captures.push(capture);
    expect(launch.servers[0]).toMatchObject({ kind: "http", name: "shipping" });
    expect((launch.servers[0] as { url: string }).url).not.toBe(url); // the proxy, not the server
    const session = (await codexHarness.open(launch)) as CodexSession;
    t.pids.push(session.pid as number);

    capture.beginTurn("turn-1");
    const turn = await session.send(turnRequest("Please quote.", "turn-1").request);
    await capture.endTurn();
    expect([turn.outcome, turn.response?.text]).toEqual(["completed", "9"]);
    expect(turn.toolCalls.map((call) => [call.tool, call.status])).toEqual([
      ["shipping_quote", "success"],
    ]);
    expect(capture.trace.toolCalls.map((call) => [call.tool, call.status, call.turnId])).toEqual([
      ["shipping_quote", "success", "turn-1"],
    ]);
    expect(callLog(log)).toEqual([
      { tool: "shipping_quote", arguments: { weight_kg: 2, zone: "local" } },
    ]);
    await session.close();
  });

  test("open() gives up when the session is torn down while Codex starts", async () => {
    const dir = await t.kit.tempDir("m3-log-");
    const { launch, capture, teardown } = await codexLaunch(
      t.kit,
      codexSelection(t.model.provider),
      [shippingServer(join(dir, "shipping.jsonl"))],
    );
    t.captures.push(capture);
    const opening = codexHarness.open(launch);
    setTimeout(() => teardown.abort(), 50);
    await expect(opening).rejects.toBeInstanceOf(HarnessStartError);
    expect(t.kit.processes).toEqual([]);
  });
});
