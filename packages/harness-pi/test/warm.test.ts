/**
 * Warm Pi (the default): sessions of one worker share a `pi --mode rpc` process, one after
 * another. These tests try to see across sessions: the other session's server (one of the
 * same name, its own call log), its tools (a ledger server the second session does not
 * have), its conversation, and what is left when the process stops. Ground truth: each
 * server's own call log and the scripted model's journal. And the defaults: a session that
 * leaves `warm` out is warm (none of the kit's processes), unless it has Pi's own tools or a
 * workspace (then its own Pi, gone at close); the refusals: `warm: true` with Pi's own tools
 * or a workspace, and a malformed `warm`, before anything starts.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { ExecutionOutcome, MCPTestKit, TurnOutcome, expect } from "jest-m3";
import { InvalidPiOptions, resolvePiOptions, stopWarmPi, warmPiPids } from "@jest-m3/harness-pi";
import { seedRule, useScriptedModel, useTempFolder } from "@jest-m3/test-support";
import { callLog, isRunning, ledgerServer, shippingServer } from "./support/pi";

jest.setTimeout(120_000);

const logs = useTempFolder("m3-pi-warm-");
const model = useScriptedModel(
  {
    rules: [
      seedRule(),
      {
        // The second session asks for the first one's ledger tool: Pi must not offer it.
        name: "steal",
        when: { user: /Record the word (\w+)/ },
        toolNotOffered: "expected",
        steps: [{ call: "ledger:record_entry", args: { text: "{{match.1}}" } }, { reply: "Done." }],
      },
    ],
  },
  { after: stopWarmPi },
);

/** The user messages of the main requests that mention `text`. */
function userMessagesOf(text: string): number[] {
  return model.journal.entries
    .filter((entry) => !entry.side && JSON.stringify(entry.body).includes(text))
    .map(
      (entry) =>
        ((entry.body as { messages?: { role: string }[] }).messages ?? []).filter(
          (message) => message.role === "user",
        ).length,
    );
}

test("two sessions share one warm Pi: each its own servers, tools and conversation", async () => {
  const [logA, logB, ledgerLog] = [logs("a.jsonl"), logs("b.jsonl"), logs("ledger.jsonl")] as const;
  await using kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([
    {
      harness: "pi",
      models: ["scripted-1"],
      provider: model.providerFor("chat-completions"),
    },
  ]);
  const first = agent!.session({
    servers: [shippingServer(logA), ledgerServer(ledgerLog)],
    tools: ["shipping:shipping_quote", "ledger:record_entry"],
    timeout: 90_000,
  });
  let turnA;
  {
    await using open = await first.open();
    turnA = await open.send("Call shipping_quote once for weight_kg 2 in zone local.");
  }
  const pidsAfterFirst = warmPiPids();
  expect(pidsAfterFirst).toHaveLength(1);

  const second = agent!.session({
    server: shippingServer(logB),
    tools: ["shipping:shipping_quote"],
    timeout: 90_000,
  });
  let turnB, stolen;
  {
    await using open = await second.open();
    turnB = await open.send("Call shipping_quote once for weight_kg 3 in zone regional.");
    stolen = await open.send("Record the word secret-of-a.");
  }
  // The same process served both sessions, each with a session id of its own.
  expect(warmPiPids()).toEqual(pidsAfterFirst);
  expect(second.result.trace.events.map((event) => event.detail).join("\n")).toMatch(
    /reused the warm Pi/,
  );
  expect(turnA.snapshot.sessionId).not.toBe(turnB.snapshot.sessionId);
  for (const session of [first, second]) {
    expect(session.result).toHaveOutcome(ExecutionOutcome.COMPLETED);
  }
  expect(turnA.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(turnB.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  expect(first.result).toHaveToolCall("shipping_quote", {
    turn: turnA,
    server: "shipping",
    status: "success",
    count: 1,
  });
  expect(second.result).toHaveToolCall("shipping_quote", {
    turn: turnB,
    server: "shipping",
    status: "success",
    count: 1,
  });
  // Ground truth: each call reached its own session's server, and nothing else did.
  expect(callLog(logA).map((call) => call.arguments)).toEqual([{ weight_kg: 2, zone: "local" }]);
  expect(callLog(logB).map((call) => call.arguments)).toEqual([{ weight_kg: 3, zone: "regional" }]);
  // The first session's ledger tool was not offered to the second: the model could not call it.
  expect(callLog(ledgerLog)).toEqual([]);
  expect(stolen.toolCalls).toEqual([]);
  expect(model.journal.decisions.map((decision) => decision.kind)).toContain("tool_not_offered");
  // A new conversation: the second session's first request carries its own prompt only.
  expect(userMessagesOf("weight_kg 3 in zone regional")[0]).toBe(1);
  expect(JSON.stringify(model.journal.entries.at(-1)?.body)).not.toContain("weight_kg 2");

  await stopWarmPi();
  expect(pidsAfterFirst.filter(isRunning)).toEqual([]);
  expect(warmPiPids()).toEqual([]);
});

test("warm by default, except with Pi's own tools; warm: false is cold", () => {
  const warm = (options: Record<string, unknown>) => resolvePiOptions(options).warm;
  expect(warm({})).toBe(true);
  expect(resolvePiOptions({}).warmByDefault).toBe(true);
  expect(warm({ builtinTools: ["read"] })).toBe(false);
  expect(warm({ builtinTools: "default" })).toBe(false);
  expect(warm({ builtinTools: [] })).toBe(true);
  expect(warm({ warm: false })).toBe(false);
  expect(resolvePiOptions({ warm: true }).warmByDefault).toBe(false);
});

test("warm left out: a session runs on the warm Pi, none of the kit's; one with a workspace gets its own Pi, gone at close", async () => {
  await stopWarmPi();
  await using kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
  const [agent] = kit.agents([
    { harness: "pi", models: ["scripted-1"], provider: model.providerFor("chat-completions") },
  ]);
  const kitPis = () => kit.processes.filter((child) => child.label === "pi");
  const log = logs("default.jsonl");
  const warmSession = agent!.session({ server: shippingServer(log), timeout: 90_000 });
  {
    await using open = await warmSession.open();
    expect(warmPiPids()).toHaveLength(1);
    expect(kitPis()).toEqual([]);
    const turn = await open.send("Call shipping_quote once for weight_kg 4 in zone local.");
    expect(turn.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  }
  expect(warmSession.result).toHaveOutcome(ExecutionOutcome.COMPLETED);
  const [warmPid] = warmPiPids();
  expect(isRunning(warmPid!)).toBe(true); // it waits for the next session
  expect(callLog(log).map((call) => call.arguments)).toEqual([{ weight_kg: 4, zone: "local" }]);

  const project = logs("project");
  mkdirSync(project);
  const coldSession = agent!.session({
    server: shippingServer(logs("workspace.jsonl")),
    workspace: { copy: project },
    timeout: 90_000,
  });
  let own: number[];
  {
    await using open = await coldSession.open();
    own = kitPis().map((child) => child.pid);
    expect(own).toHaveLength(1);
    expect(warmPiPids()).toEqual([warmPid]);
    const turn = await open.send("Call shipping_quote once for weight_kg 5 in zone local.");
    expect(turn.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  }
  expect(coldSession.result).toHaveOutcome(ExecutionOutcome.COMPLETED);
  expect(own.filter(isRunning)).toEqual([]);
  await stopWarmPi();
});

test("warm: true is refused with Pi's own tools or a workspace, and warm must be a boolean, before anything starts", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const provider = model.providerFor("chat-completions");
  const project = mkdtempSync(logs("project-"));
  for (const [options, words, workspace] of [
    [{ warm: true, builtinTools: ["read"] }, /warm.*cannot be used with builtinTools/s],
    [{ warm: true, builtinTools: "default" }, /cannot be used with builtinTools \("default"\)/],
    [{ warm: "yes" }, /warm.*must be true or false, got "yes"/s],
    [{ warm: true }, /warm.*cannot serve a session with a workspace \(copy\)/s, { copy: project }],
  ] as const) {
    const [agent] = kit.agents([{ harness: "pi", models: ["scripted-1"], provider, options }]);
    const session = agent!.session({
      server: shippingServer(logs("none.jsonl")),
      ...(workspace ? { workspace } : {}),
    });
    const error = await session.open().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(words);
    expect(kit.processes).toEqual([]);
  }
  expect(InvalidPiOptions.name).toBe("InvalidPiOptions");
  expect(warmPiPids()).toEqual([]);
});
