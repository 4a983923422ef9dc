/**
 * Warm app-servers (`options: { warm: true }`): sessions of one worker share a `codex
 * app-server`, each on its own thread. These tests try to see across sessions: another
 * session's servers, tools, provider, credentials, call log and conversation, and what is
 * left behind when a session closes.
 */
import { join } from "node:path";
import { ExecutionOutcome, MCPTestKit, type StdioServer } from "@jest-m3/core";
import codexHarness, { stopWarmAppServers } from "@jest-m3/harness-codex";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { callLog, ledgerServer, shippingServer } from "./support/codex";
import { childrenOf, seedRule } from "@jest-m3/test-support";

function codexChildren(): number[] {
  return childrenOf(process.pid, "codex");
}

describe("warm Codex sessions", () => {
  let models: ScriptedModel[] = [];
  afterEach(async () => {
    await Promise.all(models.map((model) => model.close()));
    models = [];
  });
  afterAll(() => stopWarmAppServers());

  test("two sessions share one app-server and see nothing of each other", async () => {
    const a = await startScriptedModel({ rules: [seedRule()] });
    const b = await startScriptedModel({ rules: [seedRule()] });
    models.push(a, b);
    await using kitA = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [codexHarness] });
    await using kitB = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [codexHarness] });
    const logA = join(await kitA.tempDir("m3-log-"), "a.jsonl");
    const logB = join(await kitB.tempDir("m3-log-"), "b.jsonl");
    const ledgerLog = join(await kitB.tempDir("m3-log-"), "ledger.jsonl");
    const [agentA] = kitA.agents([
      { harness: "codex", models: ["scripted"], provider: a.provider, options: { warm: true } },
    ]);
    const [agentB] = kitB.agents([
      { harness: "codex", models: ["scripted"], provider: b.provider, options: { warm: true } },
    ]);
    const sessionA = agentA!.session({
      server: shippingServer(logA),
      tools: ["shipping:shipping_quote"],
      timeout: 60_000,
    });
    // B: a server of the same name (another call log) and one A does not have.
    const servers: StdioServer[] = [shippingServer(logB), ledgerServer(ledgerLog)];
    const sessionB = agentB!.session({ servers, timeout: 60_000 });
    const [openA, openB] = await Promise.all([sessionA.open(), sessionB.open()]);
    expect(codexChildren()).toHaveLength(1); // one app-server serves both threads
    const [turnA, turnB] = await Promise.all([
      openA.send("Call shipping_quote once for weight_kg 2 in zone local."),
      openB.send("Call shipping_quote once for weight_kg 3 in zone regional."),
    ]);
    expect(turnA.response?.text).toBe("The quote is 9 USD.");
    expect(turnB.response?.text).toBe("The quote is 15.5 USD.");
    await openA.close();
    // B goes on after A closed: the app-server and B's servers remain.
    const again = await openB.send("Call shipping_quote once for weight_kg 4 in zone local.");
    expect(again.response?.text).toBe("The quote is 13 USD.");
    await openB.close();

    expect(sessionA.result.snapshot.outcome).toBe(ExecutionOutcome.COMPLETED);
    expect(sessionB.result.snapshot.outcome).toBe(ExecutionOutcome.COMPLETED);
    // Call logs: each session's calls reached its own server only.
    expect(callLog(logA).map((call) => call.arguments.weight_kg)).toEqual([2]);
    expect(callLog(logB).map((call) => call.arguments.weight_kg)).toEqual([3, 4]);
    // Providers: each model heard only its own session's conversation.
    const heard = (model: ScriptedModel) =>
      model.journal.entries.map((entry) => JSON.stringify(entry)).join("\n");
    expect(heard(a)).toContain("weight_kg 2");
    expect(heard(a)).not.toMatch(/weight_kg [34]/);
    expect(heard(b)).not.toContain("weight_kg 2");
    // Tools: A was offered its shipping tool and nothing of B's ledger server.
    const offeredA = a.journal.entries.flatMap((entry) => entry.conversation?.offeredTools ?? []);
    const offeredB = b.journal.entries.flatMap((entry) => entry.conversation?.offeredTools ?? []);
    expect(JSON.stringify(offeredA)).toContain("shipping_quote");
    expect(JSON.stringify(offeredA)).not.toContain("ledger");
    expect(JSON.stringify(offeredB)).toContain("ledger");
    // Wire evidence: each capture saw its own calls only.
    expect(sessionA.result.trace.toolCalls.map((call) => call.arguments)).toEqual([
      { weight_kg: 2, zone: "local" },
    ]);
    expect(
      sessionB.result.trace.toolCalls.map(
        (call) => (call.arguments as { weight_kg: number }).weight_kg,
      ),
    ).toEqual([3, 4]);
  });

  test("a session with other credentials gets its own app-server; keys never cross", async () => {
    const a = await startScriptedModel({ rules: [seedRule()] });
    models.push(a);
    process.env.M3_WARM_TEST_KEY = "sk-warm-only-for-c";
    try {
      await using kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [codexHarness] });
      const log = join(await kit.tempDir("m3-log-"), "calls.jsonl");
      const [plain, keyed] = kit.agents([
        { harness: "codex", models: ["scripted"], provider: a.provider, options: { warm: true } },
        {
          harness: "codex",
          models: ["scripted"],
          provider: { ...a.provider, envKey: "OPENAI_API_KEY" },
          credentialEnv: { OPENAI_API_KEY: "M3_WARM_TEST_KEY" },
          options: { warm: true },
        },
      ]);
      const before = codexChildren().length;
      const one = await plain!.session({ server: shippingServer(log), timeout: 60_000 }).open();
      const two = await keyed!.session({ server: shippingServer(log), timeout: 60_000 }).open();
      expect(codexChildren().length - before).toBeGreaterThanOrEqual(1);
      expect(codexChildren()).toHaveLength(2); // the keyed session could not join the plain one
      await one.send("Call shipping_quote once for weight_kg 2 in zone local.");
      const unkeyed = a.journal.entries.length;
      await two.send("Call shipping_quote once for weight_kg 3 in zone local.");
      const headers = a.journal.entries.map((entry) => entry.headers.authorization ?? null);
      expect(headers.slice(0, unkeyed).every((value) => value === null)).toBe(true);
      expect(headers.slice(unkeyed)).toContain("Bearer <redacted>");
      await one.close();
      await two.close();
    } finally {
      delete process.env.M3_WARM_TEST_KEY;
    }
  });

  test("closing a warm session stops its MCP servers; closing the pool leaves nothing", async () => {
    const a = await startScriptedModel({ rules: [seedRule()] });
    models.push(a);
    await using kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [codexHarness] });
    const log = join(await kit.tempDir("m3-log-"), "calls.jsonl");
    const [agent] = kit.agents([
      { harness: "codex", models: ["scripted"], provider: a.provider, options: { warm: true } },
    ]);
    const session = agent!.session({ server: shippingServer(log), timeout: 60_000 });
    const open = await session.open();
    // Every app-server's children: an earlier test's idle app-server (another pool key) may
    // still be listed first, and it holds no relay.
    const relayPids = (): number[] => codexChildren().flatMap((app) => childrenOf(app));
    expect(relayPids().length).toBeGreaterThanOrEqual(1);
    await open.close();
    expect(relayPids()).toEqual([]);
    expect(codexChildren().length).toBeGreaterThanOrEqual(1); // warm: the app-server stays
    await stopWarmAppServers();
    expect(codexChildren()).toEqual([]);
  });
});
