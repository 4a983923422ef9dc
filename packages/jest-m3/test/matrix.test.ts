// Matrices and trials: the agent list from outside the tests, and pass rates over trials
// of real sessions (the deterministic test harness making real MCP calls).
import { join } from "node:path";
import {
  InvalidAgentList,
  allServers,
  eachServer,
  eachTool,
  runCase,
  toolCases,
  MCPTestKit,
  TrialsFailed,
  expect,
  loadConfig,
  parseAgentsVariable,
  summarize,
  trials,
  wilsonInterval,
} from "jest-m3";
import { testHarness } from "@jest-m3/core/testing";
import { buildRunReport } from "../dist/report/build";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { shipping } from "@jest-m3/test-support";

describe("the agent list", () => {
  test("M3_AGENTS: harness=model items, optional trials", () => {
    expect(parseAgentsVariable("codex=gpt-5.5, claude-code=claude-sonnet-5-5*3")).toEqual([
      { harness: "codex", models: ["gpt-5.5"], trials: 1 },
      { harness: "claude-code", models: ["claude-sonnet-5-5"], trials: 3 },
    ]);
  });

  test.each([
    ["", /is empty/],
    ["codex", /item "codex" is not "harness=model"/],
    ["codex=", /item "codex=" is not/],
    ["codex=gpt*0", /trials must be a whole number from 1 to 1000, got 0/],
    ["codex=a=b", /is not "harness=model"/],
  ])("M3_AGENTS=%j is refused before anything starts", (value, message) => {
    expect(() => parseAgentsVariable(value)).toThrow(InvalidAgentList);
    expect(() => parseAgentsVariable(value)).toThrow(message);
  });

  test.each([
    [[], /must be a non-empty array/],
    [[{ harness: "codex" }], /agents\[0\]\.models must be a non-empty array/],
    [[{ harness: "codex", models: ["m"], trails: 3 }], /agents\[0\]\.trails is not a field/],
    [[{ harness: "codex", models: ["m"], trials: 1.5 }], /trials must be a whole number/],
  ])("m3.config.json agents %j is refused with the key named", (agents, message) => {
    const dir = mkdtempSync(join(tmpdir(), "m3-matrix-config-"));
    try {
      writeFileSync(join(dir, "m3.config.json"), JSON.stringify({ agents }));
      expect(() => loadConfig(dir)).toThrow(message);
      expect(() => loadConfig(dir)).toThrow(/"agents"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("pass-rate statistics", () => {
  test("3 of 5: rate, Wilson interval, pass@k and pass^k", () => {
    const verdicts = [true, false, true, false, true].map((passed, index) => ({
      trial: index + 1,
      passed,
      error: passed ? null : "no",
      durationMs: 1,
      score: null,
      judged: 0,
    }));
    const summary = summarize(verdicts);
    expect(summary).toMatchObject({ trials: 5, passed: 3, rate: 0.6 });
    expect(summary.interval[0]).toBeCloseTo(0.231, 3);
    expect(summary.interval[1]).toBeCloseTo(0.882, 3);
    // pass@1 is the rate; pass@3 = 1 - C(2,3)/C(5,3) = 1; pass^2 = C(3,2)/C(5,2) = 0.3.
    expect(summary.passAtK[0]).toBeCloseTo(0.6);
    expect(summary.passAtK[2]).toBe(1);
    expect(summary.passHatK[1]).toBeCloseTo(0.3);
    expect(summary.passHatK[4]).toBe(0);
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
  });
});

describe("trials of real sessions", () => {
  const kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  afterAll(() => kit.close());

  // An agent that calls the tool in trials 1, 3 and 5 only: a flaky agent, made
  // deterministic so the thresholds below must pass and must fail.
  const flaky = (trial: number) => async () => {
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const session = agent!.session({ server: shipping, tools: ["shipping:shipping_quote"] });
    {
      await using open = await session.open();
      await open.send(
        trial % 2 === 1
          ? `call shipping:shipping_quote {"weight_kg":2,"zone":"local"}\nreply 9 USD`
          : "reply I would rather not.",
      );
    }
    expect(session.result).toHaveToolCall("shipping_quote", { status: "success", count: 1 });
  };

  test("at least 3 of 5 passes on a tool called in 3 of 5 trials", async () => {
    const summary = await trials(5, (trial) => flaky(trial)(), { atLeast: 3 });
    expect(summary.verdicts.map((verdict) => verdict.passed)).toEqual([
      true,
      false,
      true,
      false,
      true,
    ]);
  });

  test("at least 4 of 5 fails, listing every trial's verdict with its failure", async () => {
    const failed = await trials(5, (trial) => flaky(trial)(), { atLeast: 4 }).catch(
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(TrialsFailed);
    const message = (failed as TrialsFailed).message;
    expect(message).toMatch(/^3 of 5 trials passed; the test needs at least 4 of 5\./);
    expect(message).toMatch(/trial 2: FAILED/);
    expect(message).toMatch(/trial 5: passed/);
    // The failing trial carries the matcher's own failure, the observed-call table included.
    expect(message).toMatch(/toHaveToolCall/);
  });

  test("a minimum rate: 0.6 passes, 0.61 fails", async () => {
    await expect(trials(5, (trial) => flaky(trial)(), { minRate: 0.6 })).resolves.toMatchObject({
      passed: 3,
    });
    await expect(trials(5, (trial) => flaky(trial)(), { minRate: 0.61 })).rejects.toThrow(
      /needs a pass rate of at least 0.61/,
    );
  });

  test("bad requirements are usage errors, before any trial runs", async () => {
    let ran = 0;
    const body = async () => {
      ran++;
    };
    await expect(trials(3, body, { atLeast: 4 })).rejects.toThrow(
      /atLeast must be a whole number from 1 to 3/,
    );
    await expect(trials(3, body, { minRate: 2 })).rejects.toThrow(
      "trials(): minRate must be a pass rate above 0 and at most 1, e.g. 0.8 (minRate: 0 would pass with every trial failing), got number 2.",
    );
    await expect(trials(0, body)).rejects.toThrow(/positive whole number/);
    // A requirement every run meets is no requirement: refused, not passed with 0 of N.
    await expect(trials(3, body, { atLeast: 0 })).rejects.toThrow(
      "trials(): atLeast must be a whole number of passing trials from 1 (atLeast: 0 would pass with every trial failing), got number 0.",
    );
    await expect(trials(3, body, { minRate: 0 })).rejects.toThrow(
      /^trials\(\): minRate must be a pass rate above 0 .*got number 0\.$/,
    );
    // null is not "no requirement" (a TypeError before); a misspelt key is not ignored.
    await expect(trials(3, body, null as never)).rejects.toThrow(
      "trials(): the requirement must be an object like { atLeast: 4 } or { minRate: 0.8 } (or left out: every trial must pass), got null.",
    );
    await expect(trials(3, body, { atleast: 2 } as never)).rejects.toThrow(
      'trials(): atleast is not a trials() requirement; the requirements are atLeast, minRate, minMeanScore, confidence, maxTrials. Did you mean "atLeast"?',
    );
    await expect(trials(3, body, { minRate: 0.5, atLeast: 1.5 })).rejects.toThrow(
      /atLeast must be a whole number/,
    );
    await expect(trials(3, body, { minRate: 0.5 })).resolves.toMatchObject({ trials: 3 });
    expect(ran).toBe(3); // only the last call, whose requirement was right, ran its trials
  });
});

describe("case tables", () => {
  const agentA = {
    harness: "test",
    model: "a",
    trials: 1,
    options: {},
    version: "1.0",
    label: "test 1.0 a",
    selection: { harness: "test", models: ["a"] },
  };
  const agentB = {
    ...agentA,
    model: "b",
    label: "test 1.0 b",
    selection: { harness: "test", models: ["b"] },
  };
  const quote = `call shipping:shipping_quote {"weight_kg":2,"zone":"local"}\nreply 9 USD`;
  const servers = [
    {
      server: shipping,
      tools: [
        { name: "shipping_quote", prompt: quote, arguments: { weight_kg: 2, zone: "local" } },
      ],
    },
  ];

  test("eachTool, eachServer, allServers and toolCases expand as m3's matrices do", () => {
    expect(eachTool(servers, [agentA, agentB]).map((c) => [c.id, c.tools, c.tool])).toEqual([
      ["shipping/shipping_quote/test 1.0 a", ["shipping:shipping_quote"], "shipping_quote"],
      ["shipping/shipping_quote/test 1.0 b", ["shipping:shipping_quote"], "shipping_quote"],
    ]);
    expect(eachServer(servers, [agentA], "go").map((c) => c.id)).toEqual(["shipping/test 1.0 a"]);
    expect(allServers(servers, [agentA, agentB], "go").map((c) => c.id)).toEqual([
      "all-servers/test 1.0 a",
      "all-servers/test 1.0 b",
    ]);
    expect(toolCases(servers)).toEqual([
      {
        id: "shipping/shipping_quote",
        server: shipping,
        tool: "shipping_quote",
        arguments: { weight_kg: 2, zone: "local" },
      },
    ]);
  });

  test("a tool without a prompt, a server without tools, no servers: usage errors", () => {
    expect(() =>
      eachTool([{ server: shipping, tools: [{ name: "shipping_quote" }] }], [agentA]),
    ).toThrow(/tool "shipping:shipping_quote" has no prompt/);
    expect(() => eachServer([{ server: shipping, tools: [] }], [agentA], "go")).toThrow(
      /lists no tools/,
    );
    expect(() => allServers([], [agentA], "go")).toThrow(/at least one/);
  });

  const kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  afterAll(() => kit.close());

  test.each(eachTool(servers, [agentA, agentB]))("$id calls its tool once", async (agentCase) => {
    const result = await runCase(kit, agentCase);
    expect(result).toHaveToolCall(agentCase.tool!, {
      server: agentCase.server!,
      status: "success",
      count: 1,
    });
  });

  test.each(toolCases(servers))("direct $id", async ({ server, tool, arguments: args }) => {
    const client = kit.direct(server);
    const result = await client.callTool(tool, { ...args });
    expect(result.isError ?? false).toBe(false);
    await client.close();
    expect(client.finalTrace.toolCalls.map((call) => call.status)).toEqual(["success"]);
  });
});

test("a test's trials reach the run report: passed, total, interval and what it needed", () => {
  const report = buildRunReport({
    rootDir: "/p",
    run: null,
    files: [
      {
        testFilePath: "/p/m.test.ts",
        testResults: [
          { fullName: "seed [codex]", title: "seed", status: "failed", failureMessages: [] },
          { fullName: "plain", title: "plain", status: "passed", failureMessages: [] },
        ],
      },
    ],
    sessions: [],
    success: false,
    startedAt: null,
    secrets: [],
    trials: [
      {
        testPath: "/p/m.test.ts",
        testName: "seed [codex]",
        trials: 5,
        passed: 3,
        interval: [0.231, 0.882],
        need: "at least 4 of 5",
      },
    ],
  });
  expect(report.tests.map((test) => [test.fullName, test.trials])).toEqual([
    ["seed [codex]", { passed: 3, total: 5, interval: [0.231, 0.882], need: "at least 4 of 5" }],
    ["plain", undefined],
  ]);
});
