/**
 * Warm Claude Code (`options: { warm: true }`): sessions of one worker reuse a Claude Code
 * process, one session at a time. These tests try to see across sessions: another
 * session's server (one of the same name), tools, history and credentials, and what is
 * left behind when a session closes or the process dies.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MCPTestKit, type StdioServer } from "@jest-m3/core";
import claudeCodeHarness, {
  InvalidClaudeCodeOptions,
  resolveClaudeCodeOptions,
  stopWarmClaudeCode,
  warmClaudeCodePids,
} from "@jest-m3/harness-claude-code";
import { claudePids, isRunning, ledgerServer, shippingServer, waitFor } from "./support/claude";
import {
  childrenOf,
  expectSessionsApart,
  useScriptedModel,
  warmIsolationScript,
} from "@jest-m3/test-support";

jest.setTimeout(60_000);

/** One variable of a process's environment (our own child's, read from /proc). */
function environmentOf(pid: number, name: string): string | undefined {
  const entry = readFileSync(`/proc/${pid}/environ`, "utf8")
    .split("\0")
    .find((line) => line.startsWith(`${name}=`));
  return entry?.slice(name.length + 1);
}

const SCRIPT = warmIsolationScript(
  "The {{match.2}} quote for {{match.1}} kg is {{result.amount}}.",
  true,
);

describe("warm Claude Code", () => {
  const model = useScriptedModel(SCRIPT, { after: stopWarmClaudeCode });

  const select = (extra: Record<string, unknown> = {}) => ({
    harness: "claude-code",
    models: ["scripted-model"],
    provider: model.providerFor("anthropic-messages"),
    options: { warm: true },
    ...extra,
  });

  test("the next session reuses the process and sees none of the last one's server, tools or history", async () => {
    await stopWarmClaudeCode();
    await using kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [claudeCodeHarness] });
    const dir = await kit.tempDir("m3-warm-");
    const [agent] = kit.agents([select()]);
    // Both servers are named "shipping", so both sessions have the same command line: A's is
    // the shipping server, B's is the ledger server under that name.
    const sessionA = agent!.session({
      server: shippingServer(join(dir, "a.jsonl")),
      timeout: 30_000,
    });
    const openA = await sessionA.open();
    const [pid] = claudePids();
    expect(claudePids()).toEqual([pid]);
    expect(warmClaudeCodePids()).toEqual([pid]);
    const relaysA = childrenOf(pid!);
    expect(relaysA).toHaveLength(1);
    const turnA = await openA.send("Call shipping_quote once for weight_kg 2 in zone local.");
    expect(turnA.response?.text).toBe("The local quote for 2 kg is 9.");
    const journalA = model.journal.entries.length;
    await openA.close();
    // A's server is stopped at A's close; the process stays for the next session.
    expect(relaysA.filter(isRunning)).toEqual([]);
    expect(childrenOf(pid!)).toEqual([]);
    expect(isRunning(pid!)).toBe(true);
    expect(model.journal.entries.length).toBe(journalA); // the reset asks the model nothing

    const serverB: StdioServer = { ...ledgerServer(join(dir, "b.jsonl")), name: "shipping" };
    const sessionB = agent!.session({ server: serverB, timeout: 30_000 });
    const openB = await sessionB.open();
    expect(claudePids()).toEqual([pid]); // the same process serves B
    const relaysB = childrenOf(pid!);
    expect(relaysB).toHaveLength(1);
    expect(relaysB).not.toContain(relaysA[0]);
    const steal = await openB.send("Quote through the other session for weight_kg 9.");
    expect(steal.response?.text).toMatch(/^I cannot call shipping:shipping_quote/);
    const turnB = await openB.send("Record the word heron.");
    expect(turnB.response?.text).toBe("Done.");

    // B's requests: its own tools only, a conversation that starts at B's first prompt,
    // and nothing of A's words, tool or answer.
    const seenByB = model.journal.entries.slice(journalA).filter((entry) => !entry.side);
    expect(seenByB.length).toBeGreaterThan(0);
    expect(seenByB[0]!.conversation?.turn).toBe(1);
    expect(seenByB[0]!.conversation?.user).toBe("Quote through the other session for weight_kg 9.");
    for (const entry of seenByB) {
      const body = JSON.stringify(entry.body);
      expect(entry.conversation?.offeredTools).toContain("shipping:record_entry");
      expect(entry.conversation?.offeredTools).not.toContain("shipping:shipping_quote");
      expect(body).not.toContain("weight_kg 2");
      expect(body).not.toContain("local quote");
      expect(body).not.toContain("<command-name>"); // the /clear itself was rewound
    }
    // What B's init messages say: only B's server and its tools.
    const inits = [...steal.events, ...turnB.events].filter(
      (event) => (event as { subtype?: string }).subtype === "init",
    ) as { tools: string[]; mcp_servers: { name: string }[] }[];
    expect(inits.length).toBe(2);
    for (const init of inits) {
      expect(init.tools).toContain("mcp__shipping__record_entry");
      expect(init.tools).not.toContain("mcp__shipping__shipping_quote");
      expect(init.mcp_servers.map((server) => server.name)).toEqual(["shipping"]);
    }
    await openB.close();
    expect(relaysB.filter(isRunning)).toEqual([]);
    expect(isRunning(pid!)).toBe(true); // warm: the process stays

    expectSessionsApart(sessionA, sessionB, dir, ["heron"]);
  });

  test("other credentials, another allow-list or a session running meanwhile get another process", async () => {
    await stopWarmClaudeCode();
    process.env.M3_WARM_CLAUDE_TEST_KEY = "sk-warm-only-for-keyed";
    try {
      await using kit = new MCPTestKit({
        env: {},
        killGraceMs: 500,
        harnesses: [claudeCodeHarness],
      });
      const dir = await kit.tempDir("m3-warm-");
      const keyed = select({
        provider: { ...model.providerFor("anthropic-messages"), envKey: "ANTHROPIC_API_KEY" },
        credentialEnv: { ANTHROPIC_API_KEY: "M3_WARM_CLAUDE_TEST_KEY" },
      });
      const [plain, withKey] = kit.agents([select(), keyed]);
      const server = shippingServer(join(dir, "calls.jsonl"));
      const one = await plain!.session({ server, timeout: 30_000 }).open();
      const [first] = claudePids();
      const two = await withKey!.session({ server, timeout: 30_000 }).open();
      const narrow = await plain!
        .session({ server, tools: ["shipping:shipping_quote"], timeout: 30_000 })
        .open();
      const meanwhile = await plain!.session({ server, timeout: 30_000 }).open();
      const pids = claudePids();
      // The keyed session, the narrower allow-list and the session opened while the first
      // was still open each got a process of their own.
      expect(pids).toHaveLength(4);
      expect(pids).toContain(first);
      const keys = pids.map((pid) => environmentOf(pid, "ANTHROPIC_API_KEY"));
      expect(keys.filter((key) => key === "sk-warm-only-for-keyed")).toHaveLength(1);
      const turn = await two.send("Call shipping_quote once for weight_kg 3 in zone local.");
      expect(turn.response?.text).toMatch(/^The local quote for 3 kg is \d/);
      for (const open of [one, two, narrow, meanwhile]) await open.close();
      // Closed, all four wait for their next session of the same key.
      expect(claudePids().sort()).toEqual([...pids].sort());
    } finally {
      delete process.env.M3_WARM_CLAUDE_TEST_KEY;
    }
    await stopWarmClaudeCode();
    expect(claudePids()).toEqual([]);
  });

  test("a warm process that died is replaced; the pool leaves nothing running", async () => {
    await stopWarmClaudeCode();
    await using kit = new MCPTestKit({ env: {}, killGraceMs: 500, harnesses: [claudeCodeHarness] });
    const dir = await kit.tempDir("m3-warm-");
    const [agent] = kit.agents([select()]);
    const server = shippingServer(join(dir, "calls.jsonl"));
    const first = await agent!.session({ server, timeout: 30_000 }).open();
    const [dead] = claudePids();
    const below = childrenOf(dead!);
    await first.close();
    process.kill(-dead!, "SIGKILL"); // ours: the warm process this test started, and its group
    await waitFor(() => !isRunning(dead!), "the killed process to go");
    const second = await agent!.session({ server, timeout: 30_000 }).open();
    const [fresh] = claudePids();
    expect(fresh).not.toBe(dead);
    const turn = await second.send("Call shipping_quote once for weight_kg 4 in zone local.");
    expect(turn.response?.text).toMatch(/^The local quote for 4 kg is \d/);
    const relays = childrenOf(fresh!);
    await second.close();
    await stopWarmClaudeCode();
    expect([dead!, fresh!, ...below, ...relays].filter(isRunning)).toEqual([]);
  });

  test("warm is a boolean, true by default, and not offered with built-in tools (one working directory)", () => {
    expect(resolveClaudeCodeOptions({ warm: true }).warm).toBe(true);
    expect(resolveClaudeCodeOptions({ warm: false }).warm).toBe(false);
    expect(resolveClaudeCodeOptions({}).warm).toBe(true);
    expect(() => resolveClaudeCodeOptions({ warm: "yes" })).toThrow(InvalidClaudeCodeOptions);
    expect(() => resolveClaudeCodeOptions({ warm: true, builtinTools: ["Read"] })).toThrow(
      /one working directory/,
    );
    expect(() => resolveClaudeCodeOptions({ warm: true, builtinTools: "default" })).toThrow(
      InvalidClaudeCodeOptions,
    );
  });
});
