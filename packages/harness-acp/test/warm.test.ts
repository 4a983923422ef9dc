/**
 * Warm agents (`options: { warm: true }`): sessions of one worker share a Gemini CLI or
 * OpenCode process, each as its own ACP session. These tests try to see across sessions:
 * another session's servers (one of the same name), tools, history, credentials and
 * allow-list, and what is left behind when a session closes or the process dies. Qwen Code
 * runs the credentials and allow-list test: its allow-list is not in what its process is
 * started with (every MCP tool asks, and the adapter answers from the session's own
 * allow-list), so a narrower one shares the process and is refused there what the other
 * session may call. Its other warm checks are in qwen-warm.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MCPTestKit, type StdioServer } from "@jest-m3/core";
import type { ProviderDialect } from "@jest-m3/core/harness";
import {
  geminiHarness,
  opencodeHarness,
  qwenHarness,
  stopWarmAcpAgents,
} from "@jest-m3/harness-acp";
import type { ScriptedModel } from "@jest-m3/scripted-model";
import { callLog, isRunning, ledgerServer, shippingServer, waitFor } from "./support/acp";
import {
  childrenOf,
  childrenRunning,
  expectSessionsApart,
  useScriptedModel,
  warmIsolationScript,
} from "@jest-m3/test-support";

jest.setTimeout(120_000);

/** This worker's agent processes of `harness` (the warm ones outlive their kits). */
const agentPids = (harness: string): number[] => childrenRunning(process.pid, harness);

const SCRIPT = warmIsolationScript("The {{match.2}} quote for {{match.1}} kg is ready.");

/** Every main request of `model` whose body mentions `text`, as JSON. */
function requestsWith(model: ScriptedModel, text: string): string[] {
  return model.journal.entries
    .filter((entry) => !entry.side) // OpenCode's title requests carry no tools
    .map((entry) => JSON.stringify(entry.body))
    .filter((body) => body.includes(text));
}

/**
 * Where an agent's allow-list is: `plan` in the files its process starts with (Gemini CLI's
 * policy, OpenCode's permission map), so another allow-list is another process; `session`
 * in the adapter's answers to each session's permission requests (Qwen Code), so sessions
 * share a process whatever their allow-lists.
 */
type AllowList = "plan" | "session";

describe.each([
  ["gemini", "gemini", "GEMINI_API_KEY", "plan"],
  ["opencode", "chat-completions", "OPENAI_API_KEY", "plan"],
  ["qwen-code", "chat-completions", "OPENAI_API_KEY", "session"],
] as const)("warm %s", (harness, dialect: ProviderDialect, keyVariable, allowList: AllowList) => {
  const harnesses = [geminiHarness, opencodeHarness, qwenHarness];
  /** A test Gemini CLI and OpenCode run here (Qwen Code's are in qwen-warm.test.ts). */
  const notOnQwen = (name: string, fn: () => Promise<void>): void => {
    if (allowList === "plan") test(name, fn);
  };
  const model = useScriptedModel(SCRIPT, { after: stopWarmAcpAgents });

  const select = (options: Record<string, unknown> = { warm: true }) => ({
    harness,
    models: ["scripted-1"],
    provider: model.providerFor(dialect),
    options,
  });

  notOnQwen(
    "two sessions share one process; each sees only its own server, tools and history",
    async () => {
      await stopWarmAcpAgents();
      await using kit = new MCPTestKit({
        env: {},
        killGraceMs: 500,
        harnesses,
      });
      const dir = await kit.tempDir("m3-warm-");
      const [agentA, agentB] = kit.agents([select(), select()]);
      // Both servers are named "shipping", so both sessions have the same allow-list and
      // policy: A's is the shipping server, B's is the ledger server under that name.
      const serverA = shippingServer(join(dir, "a.jsonl"));
      const serverB: StdioServer = { ...ledgerServer(join(dir, "b.jsonl")), name: "shipping" };
      const sessionA = agentA!.session({ server: serverA, timeout: 60_000 });
      const sessionB = agentB!.session({ server: serverB, timeout: 60_000 });
      const openA = await sessionA.open();
      const [pid] = agentPids(harness);
      expect(agentPids(harness)).toEqual([pid]);
      const turnA = await openA.send("Call shipping_quote once for weight_kg 2 in zone local.");
      expect(turnA.response?.text).toBe("The local quote for 2 kg is ready.");

      const openB = await sessionB.open();
      expect(agentPids(harness)).toEqual([pid]); // the same process serves B
      const relays = childrenOf(pid!);
      expect(relays).toHaveLength(2); // A's relay and B's
      const steal = await openB.send("Quote through the other session for weight_kg 9.");
      expect(steal.response?.text).toMatch(/^I cannot call shipping:shipping_quote/);
      const turnB = await openB.send("Record the word heron.");
      expect(turnB.response?.text).toBe("Done.");

      // B's requests: its own tools only, and nothing of A's conversation.
      const seenByB = requestsWith(model, "Quote through the other session");
      expect(seenByB.length).toBeGreaterThan(0);
      for (const body of seenByB) {
        expect(body).toContain("record_entry");
        expect(body).not.toContain('shipping_quote"'); // A's tool is not declared to B
        expect(body).not.toContain("weight_kg 2");
        expect(body).not.toContain("local quote");
      }
      // A's requests never carried B's tools or words.
      for (const body of requestsWith(model, "weight_kg 2 in zone local")) {
        expect(body).not.toContain("record_entry");
        expect(body).not.toContain("heron");
      }
      await openA.close();
      // A is gone from the process: its relay stopped, B's remains and B goes on.
      expect(childrenOf(pid!)).toHaveLength(1);
      const again = await openB.send("Record the word crane.");
      expect(again.response?.text).toBe("Done.");
      await openB.close();
      expect(relays.filter(isRunning)).toEqual([]);
      expect(isRunning(pid!)).toBe(true); // warm: the agent stays

      expectSessionsApart(sessionA, sessionB, dir, ["heron", "crane"]);
      expect(sessionA.result.trace.toolCalls.map((call) => call.tool)).toEqual(["shipping_quote"]);
    },
  );

  const keyedName =
    allowList === "plan"
      ? "other credentials or another allow-list get another process"
      : "other credentials get another process; another allow-list shares one, and its own refusals hold there";
  test(keyedName, async () => {
    process.env.M3_WARM_ACP_TEST_KEY = "sk-warm-only-for-keyed";
    try {
      await using kit = new MCPTestKit({
        env: {},
        killGraceMs: 500,
        harnesses,
      });
      const dir = await kit.tempDir("m3-warm-");
      const keyed = {
        ...select(),
        provider: { ...model.providerFor(dialect), envKey: keyVariable },
        credentialEnv: { [keyVariable]: "M3_WARM_ACP_TEST_KEY" },
      };
      const [plain, withKey] = kit.agents([select(), keyed]);
      const server = shippingServer(join(dir, "calls.jsonl"));
      const one = await plain!.session({ server, timeout: 60_000 }).open();
      const [first] = agentPids(harness);
      // Narrower than the plain session's (every tool): on Qwen Code, none at all.
      const tools = allowList === "plan" ? ["shipping:shipping_quote"] : [];
      // The two that may need a process of their own start side by side.
      const [two, narrow] = await Promise.all([
        withKey!.session({ server, timeout: 60_000 }).open(),
        plain!.session({ server, tools, timeout: 60_000 }).open(),
      ]);
      const pids = agentPids(harness);
      // The keyed session got a process of its own, and so did the narrower allow-list
      // where it is in the process's files; on Qwen Code it shares the plain one's.
      expect(pids).toHaveLength(allowList === "plan" ? 3 : 2);
      expect(pids).toContain(first);
      // Exactly one process holds the key: the keyed session's (its own environment; the
      // journal redacts the header it sends).
      const holdsKey = (pid: number): boolean =>
        readFileSync(`/proc/${pid}/environ`, "utf8")
          .split("\0")
          .includes(`${keyVariable}=sk-warm-only-for-keyed`);
      expect(pids.filter(holdsKey)).toHaveLength(1);
      expect(holdsKey(first as number)).toBe(false);
      for (const [open, weight] of [
        [two, 3],
        [one, 4],
      ] as const) {
        const turn = await open.send(
          `Call shipping_quote once for weight_kg ${weight} in zone local.`,
        );
        expect(turn.response?.text).toMatch(/^The local quote/);
      }
      if (allowList === "session") {
        // On the process it shares with the plain session, which may call shipping_quote,
        // the narrower session's call is refused and never reaches the server.
        const refused = await narrow.send(
          "Call shipping_quote once for weight_kg 5 in zone local.",
        );
        expect(refused.toolCalls.map((call) => [call.tool, call.status])).toEqual([
          ["shipping_quote", "policy_denied"],
        ]);
      }
      expect(callLog(join(dir, "calls.jsonl")).map((call) => call.arguments)).toEqual([
        { weight_kg: 3, zone: "local" },
        { weight_kg: 4, zone: "local" },
      ]);
      for (const open of [one, two, narrow]) await open.close();
    } finally {
      delete process.env.M3_WARM_ACP_TEST_KEY;
    }
    await stopWarmAcpAgents();
    expect(agentPids(harness)).toEqual([]);
  });

  notOnQwen("a warm process that died is replaced; the pool leaves nothing running", async () => {
    await using kit = new MCPTestKit({
      env: {},
      killGraceMs: 500,
      harnesses,
    });
    const dir = await kit.tempDir("m3-warm-");
    const [agent] = kit.agents([select()]);
    const server = shippingServer(join(dir, "calls.jsonl"));
    const first = await agent!.session({ server, timeout: 60_000 }).open();
    const [dead] = agentPids(harness);
    const below = childrenOf(dead!);
    await first.close();
    process.kill(-dead!, "SIGKILL"); // ours: the warm agent this test started, and its group
    await waitFor(() => !isRunning(dead!), "the killed agent to go");
    const second = await agent!.session({ server, timeout: 60_000 }).open();
    const [fresh] = agentPids(harness);
    expect(fresh).not.toBe(dead);
    const turn = await second.send("Call shipping_quote once for weight_kg 4 in zone local.");
    expect(turn.response?.text).toBe("The local quote for 4 kg is ready.");
    const relays = childrenOf(fresh!);
    await second.close();
    await stopWarmAcpAgents();
    expect([dead!, fresh!, ...below, ...relays].filter(isRunning)).toEqual([]);
  });
});
