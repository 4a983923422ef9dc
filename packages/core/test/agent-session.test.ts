import { defineHarness } from "@jest-m3/core/harness";
import type { ManagedProcess } from "@jest-m3/core/adapter-kit";
import {
  M3Runtime,
  ExecutionOutcome,
  HarnessNotReady,
  InvalidSelection,
  InvalidToolPolicy,
  KitClosed,
  MCPTestKit,
  SessionBusy,
  SessionClosed,
  SessionStillOpen,
  TurnOutcome,
  UnknownHarness,
} from "@jest-m3/core";
import { isRunning } from "./support/processes";
import { faultServer, shipping } from "./support/servers";
import { testHarness } from "@jest-m3/core/testing";

const quote = (weight: number, zone: string) =>
  `call shipping:shipping_quote ${JSON.stringify({ weight_kg: weight, zone })}`;

describe("agent sessions (state machine, with a deterministic test adapter over real servers)", () => {
  let kit: MCPTestKit;
  let harnessProcess: ManagedProcess | undefined;
  beforeEach(() => {
    harnessProcess = undefined;
    kit = new MCPTestKit({
      env: {},
      killGraceMs: 300,
      harnesses: [testHarness({ onOpen: (child) => (harnessProcess = child) })],
    });
  });
  afterEach(async () => {
    const pids = kit.processes.map((child) => child.pid);
    await kit.close();
    expect(pids.filter(isRunning)).toEqual([]);
  });

  test("two turns share one session; each turn owns its own calls; the result is final after close", async () => {
    const [agent] = kit.agents([{ harness: "test", models: ["m1"] }]);
    const session = agent!.session({
      server: shipping,
      tools: ["shipping:shipping_quote"],
      timeout: 10_000,
    });
    expect(session.lifecycle).toBe("created");
    let first, second;
    {
      await using open = await session.open();
      expect(open.lifecycle).toBe("idle");
      first = await open.send(`${quote(2, "local")}\nreply The quote is 9 USD.`);
      second = await open.send(`${quote(3, "regional")}\nreply The quote is 15.5 USD.`);
      expect(() => session.result).toThrow(SessionStillOpen);
    }
    const result = session.result;
    expect(result.snapshot.outcome).toBe(ExecutionOutcome.COMPLETED);
    expect(result.snapshot.lifecycle).toBe("finished");
    expect(first.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
    expect(second.snapshot.sessionId).toBe(first.snapshot.sessionId);
    expect([first.snapshot.number, second.snapshot.number]).toEqual([1, 2]);
    expect(first.response).toEqual({ text: "The quote is 9 USD." });

    expect(first.toolCalls).toEqual([
      expect.objectContaining({
        tool: "shipping_quote",
        server: "shipping",
        arguments: { weight_kg: 2, zone: "local" },
        status: "success",
        evidence: "both",
        correlation: "correlated",
        turnId: first.snapshot.turnId,
      }),
    ]);
    expect(second.toolCalls.map((call) => call.arguments)).toEqual([
      { weight_kg: 3, zone: "regional" },
    ]);
    expect(result.snapshot.toolCallCount).toBe(2);
    expect(result.snapshot.agent).toEqual({
      name: "test:m1",
      harness: "test",
      model: "m1",
      version: "1.0.0",
    });
    // Startup traffic (initialize, tools/list) belongs to no turn.
    const initialize = result.trace.messages.find(
      (entry) => (entry.message as { method?: string })?.method === "initialize",
    );
    expect(initialize?.turnId).toBeNull();
  });

  test("send during a running turn is SessionBusy", async () => {
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const session = await agent!.session({ server: shipping, timeout: 10_000 }).open();
    const running = session.send("hang");
    await expect(session.send("reply hi")).rejects.toThrow(SessionBusy);
    await expect(session.send("reply hi")).rejects.toThrow(
      /await its send\(\) before sending the next turn/,
    );
    await session.cancel();
    expect((await running).snapshot.outcome).toBe("cancelled");
    expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.CANCELLED);
  });

  test("a turn past its timeout: interrupted, turn and session timed_out, readable result, harness stopped", async () => {
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const session = await agent!.session({ server: shipping, timeout: 10_000 }).open();
    const turn = await session.send(`${quote(2, "local")}\nhang`, { timeout: 300 });
    expect(turn.snapshot.outcome).toBe(TurnOutcome.TIMED_OUT);
    expect(turn.error?.message).toMatch(/did not finish within 300 ms/);
    expect(turn.toolCalls.map((call) => call.status)).toEqual(["success"]);
    expect(session.lifecycle).toBe("finished");
    const result = session.result;
    expect(result.snapshot.outcome).toBe(ExecutionOutcome.TIMED_OUT);
    expect(result.turns).toHaveLength(1);
    expect(isRunning(harnessProcess!.pid!)).toBe(false);
    await expect(session.send("reply again")).rejects.toThrow(SessionClosed);
  });

  test("a failed turn with a live harness leaves the session usable", async () => {
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const session = agent!.session({ server: shipping, timeout: 10_000 });
    await session.open();
    const failed = await session.send("fail provider said 500");
    expect(failed.snapshot.outcome).toBe(TurnOutcome.FAILED);
    expect(failed.error?.message).toBe("provider said 500");
    const next = await session.send(`${quote(1, "international")}\nreply 12 USD`);
    expect(next.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
    await session.close();
    expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.FAILED);
    expect(session.result.error?.message).toMatch(/turn 1 failed: provider said 500/);
  });

  test("a dying harness ends the session failed, with its stderr tail", async () => {
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const session = await agent!.session({ server: shipping, timeout: 10_000 }).open();
    await session.send(quote(2, "local"));
    const turn = await session.send("die");
    expect(turn.snapshot.outcome).toBe("failed");
    expect(turn.error?.message).toMatch(/harness died during the turn/);
    expect(turn.error?.message).toContain("test-harness: up");
    expect(session.lifecycle).toBe("finished");
    expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.FAILED);
    expect(session.result.turns[0]?.toolCalls).toHaveLength(1);
    await expect(session.send("reply")).rejects.toThrow(SessionClosed);
  });

  test("a harness that is not ready: HarnessNotReady with every reason, nothing started", async () => {
    const notReady = new MCPTestKit({
      env: {},
      harnesses: [
        testHarness({
          unavailable: { multiTurn: "no threads in this version", credentials: "no login found" },
        }),
      ],
    });
    try {
      const [agent] = notReady.agents([{ harness: "test", models: ["m"] }]);
      const session = agent!.session({ server: shipping });
      const error = (await session.open().catch((caught: unknown) => caught)) as HarnessNotReady;
      expect(error).toBeInstanceOf(HarnessNotReady);
      expect(error.reasons).toEqual([
        "multiTurn: unavailable (no threads in this version)",
        "credentials: unavailable (no login found)",
      ]);
      expect(error.message).toContain(
        '"Readiness" in the troubleshooting guide, https://github.com/jest-m3/jest-m3/blob/main/docs/troubleshooting.md#readiness',
      );
      expect(notReady.processes).toEqual([]);
      expect(session.result.snapshot.outcome).toBe("failed");
    } finally {
      await notReady.close();
    }
  });

  test("the allow-list is enforced on the wire and checked against reports", async () => {
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const session = await agent!
      .session({ servers: [faultServer()], tools: ["faulty:echo"], timeout: 10_000 })
      .open();
    const denied = await session.send(`call faulty:sleep {"ms":1}\nreply done`);
    expect(denied.toolCalls).toEqual([
      expect.objectContaining({ tool: "sleep", status: "policy_denied", evidence: "both" }),
    ]);
    expect(denied.snapshot.outcome).toBe("completed");
    const lying = await session.send(`report-only faulty:sleep {"ms":1}`);
    expect(lying.snapshot.outcome).toBe("failed");
    expect(lying.error?.message).toMatch(
      /Tool policy violation: the harness reports calling faulty:sleep/,
    );
    expect(lying.toolCalls[0]).toMatchObject({
      evidence: "reported",
      correlation: "reported_only",
    });
    await session.close();
  });

  test("session options are checked before anything starts", () => {
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    expect(() => agent!.session({ server: shipping, tools: ["billing:charge"] })).toThrow(
      InvalidToolPolicy,
    );
    expect(() => agent!.session({ server: shipping, tools: ["billing:charge"] })).toThrow(
      /bound servers are: "shipping"/,
    );
    expect(() => agent!.session({ server: shipping, timeout: -1 })).toThrow(
      /positive number of milliseconds/,
    );
    expect(() => agent!.session({ server: shipping, servers: [shipping] })).toThrow(
      /either "server" or "servers"/,
    );
    expect(() => agent!.session({ server: shipping, tool: [] } as never)).toThrow(
      /Session option "tool" is unknown/,
    );
    expect(kit.processes).toEqual([]);
  });

  test("result before open, send before open, send after the kit closed", async () => {
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const session = agent!.session({ server: shipping });
    expect(() => session.result).toThrow(SessionStillOpen);
    await expect(session.send("hi")).rejects.toThrow(/not open yet/);
    await session.open();
    await kit.close();
    await expect(session.send("hi")).rejects.toThrow(KitClosed);
    expect(session.result.snapshot.lifecycle).toBe("finished");
  });

  test("agent.run is a one-turn session that returns the final result", async () => {
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const result = await agent!.run(`${quote(2, "local")}\nreply ok`, { server: shipping });
    expect(result.snapshot.outcome).toBe("completed");
    expect(result.turns).toHaveLength(1);
    expect(result.trace.toolCalls).toHaveLength(1);
  });
});

describe("agent selections", () => {
  const kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  afterAll(() => kit.close());

  test("one selection per model × trial, with no I/O", () => {
    const agents = kit.agents([{ harness: "test", models: ["a", "b"], name: "mine" }], {
      trials: 2,
    });
    expect(agents.map((agent) => [agent.model, agent.trial, agent.name])).toEqual([
      ["a", 1, "mine"],
      ["a", 2, "mine"],
      ["b", 1, "mine"],
      ["b", 2, "mine"],
    ]);
    expect(kit.processes).toEqual([]);
  });

  test.each([
    [
      [{ harness: "test", models: [] }],
      /field "models" must be a non-empty array of model names, got an empty array/,
    ],
    [[{ harness: "test", models: ["m"], model: "x" }], /field "model" is not a selection field/],
    [[{ harness: "test", models: [""] }], /field "models\[0\]" must be a non-empty string/],
    [
      [
        {
          harness: "test",
          models: ["m"],
          credentialEnv: { OPENAI_API_KEY: "M3_TEST_UNSET_VARIABLE_XYZ" },
        },
      ],
      /names the environment variable M3_TEST_UNSET_VARIABLE_XYZ, which is not set/,
    ],
    [
      [
        {
          harness: "test",
          models: ["m"],
          provider: { name: "p", baseUrl: "http://127.0.0.1:1/v1", wireApi: "chat" },
        },
      ],
      /field "provider.wireApi" must be a dialect the "test" harness speaks \("responses"\), got "chat"/,
    ],
  ])("invalid selection %#", (selections, message) => {
    expect(() => kit.agents(selections as never)).toThrow(InvalidSelection);
    expect(() => kit.agents(selections as never)).toThrow(message);
  });

  /** What `select` throws, as an UnknownHarness (undefined when it throws nothing). */
  const selectionError = (select: () => unknown): UnknownHarness | undefined => {
    try {
      select();
    } catch (caught) {
      return caught as UnknownHarness;
    }
    return undefined;
  };

  test("an unknown harness lists the registered ones and the packages tried", () => {
    const error = selectionError(() => kit.agents([{ harness: "nope", models: ["m"] }]));
    expect(error).toBeInstanceOf(UnknownHarness);
    expect(error?.registered).toEqual(["test"]);
    expect(error?.tried).toEqual(["@jest-m3/harness-nope", "jest-m3-harness-nope"]);
    expect(error?.message).toContain("(registered on the kit: test)");
    expect(error?.message).not.toMatch(/npm install/);
  });

  test("a misspelt harness gets a did-you-mean among installed harnesses, never an install command for the typo", () => {
    const error = selectionError(() => kit.agents([{ harness: "codx", models: ["m"] }]));
    expect(error).toBeInstanceOf(UnknownHarness);
    // This repository's workspace installs the published harness packages.
    expect(error?.available).toEqual(expect.arrayContaining(["codex", "claude", "gemini", "test"]));
    expect(error?.suggestion).toBe("codex");
    expect(error?.message).toMatch(/^No harness adapter named "codx"\. Did you mean "codex"\?/);
    expect(error?.message).not.toMatch(/install[^.]*harness-codx/);
  });
});

describe("readiness is probed once per key", () => {
  test("equal keys share one probe; an answer primed from elsewhere is used without probing", async () => {
    let probes = 0;
    const base = testHarness();
    const counting = defineHarness({
      name: "counting",
      async readiness(context) {
        probes++;
        return base.readiness(context);
      },
      readinessKey: (context) =>
        JSON.stringify([context.credentialNames, context.selection.provider ?? null]),
      open: base.open,
    });
    const kit = new MCPTestKit({ env: {}, harnesses: [counting] });
    try {
      const [a, b] = kit.agents([{ harness: "counting", models: ["m1", "m2"] }]);
      await a!.readiness();
      await b!.readiness();
      expect(probes).toBe(1);

      const runtime = new M3Runtime();
      const primedKit = new MCPTestKit({
        env: {},
        harnesses: [defineHarness({ ...counting })],
        runtime,
      });
      const [c] = primedKit.agents([{ harness: "counting", models: ["m3"] }]);
      const primed = {
        ...(await a!.readiness()),
        harness: { name: "counting", version: "primed", executable: null },
      };
      runtime.primeReadiness("counting", `adapter:${JSON.stringify([[], null])}`, primed);
      expect((await c!.readiness()).harness.version).toBe("primed");
      expect(probes).toBe(1);
      await primedKit.close();
    } finally {
      await kit.close();
    }
  });
});

describe("sessions against awkward adapters", () => {
  test("close() while open() is still starting the harness: the session ends cancelled, open() says so, the late harness is closed", async () => {
    const base = testHarness();
    let lateClosed = false;
    let innerOpened: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (innerOpened = resolve));
    const slow = defineHarness({
      name: "slow",
      readiness: base.readiness,
      async open(launch) {
        const inner = await base.open(launch);
        innerOpened(); // the harness is up; it just has not answered open() yet
        await new Promise((resolve) => setTimeout(resolve, 300));
        return {
          ...inner,
          close: async () => {
            lateClosed = true;
            await inner.close();
          },
        };
      },
    });
    const kit = new MCPTestKit({ env: {}, harnesses: [slow] });
    try {
      const [agent] = kit.agents([{ harness: "slow", models: ["m"] }]);
      const session = agent!.session({ server: shipping, timeout: 10_000 });
      const opening = session.open().catch((error: unknown) => error);
      await opened;
      await session.close();
      expect(await opening).toBeInstanceOf(SessionClosed);
      expect(session.result.snapshot.outcome).toBe("cancelled");
      expect(session.result.error?.message).toBe("The session was closed while it was opening.");
      expect(lateClosed).toBe(true);
      await expect(session.send("reply hi")).rejects.toThrow(SessionClosed);
    } finally {
      await kit.close();
    }
  });

  test("an adapter whose send throws synchronously fails the turn and leaves the session closable", async () => {
    const base = testHarness();
    const throwing = defineHarness({
      name: "throwing",
      readiness: base.readiness,
      async open(launch) {
        const inner = await base.open(launch);
        return {
          ...inner,
          send: () => {
            throw new Error("adapter bug");
          },
        };
      },
    });
    const kit = new MCPTestKit({ env: {}, harnesses: [throwing] });
    try {
      const [agent] = kit.agents([{ harness: "throwing", models: ["m"] }]);
      const session = await agent!.session({ server: shipping, timeout: 10_000 }).open();
      const turn = await session.send("anything");
      expect(turn.snapshot.outcome).toBe("failed");
      expect(turn.error?.message).toContain("adapter bug");
      await session.close();
      expect(session.result.snapshot.outcome).toBe("failed");
    } finally {
      await kit.close();
    }
  });
});
