// The statistics engine and the catalog reader on their own: nearest-rank percentiles,
// trials attributed per agent, and tools/list answers merged across pages.
import type { TraceMessage } from "jest-m3";
import { formatStatsTable, percentile, testStats } from "../dist/report/stats";
import { catalogsOf, schemaHash, type TranscriptRecord } from "../dist/shared/transcript";

test("percentiles are nearest-rank: always a value that occurred", () => {
  expect(percentile([], 50)).toBeNull();
  expect(percentile([7], 95)).toBe(7);
  expect(percentile([120, 80, 400, 95], 50)).toBe(95);
  expect(percentile([120, 80, 400, 95], 95)).toBe(400);
  expect(
    percentile(
      Array.from({ length: 20 }, (_, i) => i + 1),
      95,
    ),
  ).toBe(19);
});

const session = (model: string, turns: number[][]): TranscriptRecord => ({
  testPath: "/p/a.test.ts",
  testName: "t",
  executionId: `e-${model}-${turns.length}`,
  agent: `codex:${model}`,
  model,
  harness: "codex",
  version: "0.171.0",
  sessionId: "s",
  outcome: "completed",
  error: null,
  gaps: [],
  outsideTurns: 0,
  turns: turns.map(([durationMs, calls], index) => ({
    number: index + 1,
    outcome: "completed",
    prompt: "p",
    reply: "r",
    error: null,
    durationMs: durationMs!,
    toolCalls: Array.from({ length: calls! }, () => ({
      server: "s",
      tool: "t",
      arguments: "{}",
      status: "success",
      evidence: "wire",
    })),
  })),
});

test("one row per agent; trials from the ledger (a record without an agent belongs to the only agent)", () => {
  const one = testStats(
    [
      session("a", [
        [100, 1],
        [300, 2],
      ]),
      session("a", [[200, 0]]),
    ],
    [{ testPath: "/p/a.test.ts", testName: "t", agent: null, trials: 2, passed: 1 }],
    false,
  );
  expect(one).toEqual([
    {
      agent: { harness: "codex", model: "a", version: "0.171.0" },
      trials: { run: 2, passed: 1, rate: 0.5, interval: [expect.any(Number), expect.any(Number)] },
      sessions: 2,
      turns: 3,
      turnLatencyMs: { p50: 200, p95: 300 },
      toolCalls: { total: 3, perSession: { mean: 1.5, p50: 0, p95: 3, max: 3 } },
      judgeScores: null,
      // No provider tap counted tokens, and no session has a cost: unavailable, not 0.
      tokens: null,
      cost: { unavailable: "the session's cost was not recorded" },
    },
  ]);
  // Two agents, the ledger naming each (one without the version the session knows).
  const two = testStats(
    [session("a", [[100, 1]]), session("b", [[50, 2]])],
    [
      {
        testPath: "",
        testName: "t",
        agent: { harness: "codex", model: "a", version: null },
        trials: 3,
        passed: 3,
      },
      {
        testPath: "",
        testName: "t",
        agent: { harness: "codex", model: "b", version: "0.171.0" },
        trials: 3,
        passed: 1,
      },
    ],
    false,
  );
  expect(
    two.map((row) => [row.agent.model, row.trials.passed, row.trials.run, row.toolCalls.total]),
  ).toEqual([
    ["a", 3, 3, 1],
    ["b", 1, 3, 2],
  ]);
  // No trials: the test itself is the one run.
  expect(testStats([session("a", [[10, 0]])], [], true)[0]!.trials).toMatchObject({
    run: 1,
    passed: 1,
  });
});

test("judge scores per agent: each verdict on the agent of the session it judged, .not ones and judge failures left out; the table's column", () => {
  const verdict = (executionId: string, score: number, isNot = false) => ({
    testPath: "/p/a.test.ts",
    testName: "t",
    trial: null,
    isNot,
    criteria: "the reply states the amount",
    threshold: null,
    passed: score >= 0.5,
    pass: score >= 0.5,
    score,
    reasoning: "r",
    subject: { executionId, turn: 1 },
  });
  const sessions = [session("a", [[100, 1]]), session("b", [[50, 2]])];
  const { score: _score, passed: _passed, pass: _pass, ...failed } = verdict("e-b-1", 0);
  const rows = testStats(sessions, [], true, [
    verdict("e-a-1", 0.9),
    verdict("e-a-1", 0.7),
    verdict("e-a-1", 0.1, true),
    verdict("e-b-1", 0.3),
    { ...failed, error: { reason: "timeout", status: null, message: "no answer" } },
  ]);
  expect(rows.map((row) => [row.agent.model, row.judgeScores])).toEqual([
    ["a", { mean: 0.8, n: 2 }],
    ["b", { mean: 0.3, n: 1 }],
  ]);
  const table = formatStatsTable(rows.map((stats) => ({ test: "t", stats })));
  expect(table.split("\n")[0]).toContain("judge mean (n)");
  expect(table).toMatch(/ 0\.8 \(2\) +codex 0\.171\.0 · a +t\n/);
  expect(table).toMatch(/ 0\.3 \(1\) +codex 0\.171\.0 · b +t$/);
  // No verdict in the run: no judge column at all.
  const plain = formatStatsTable(
    testStats(sessions, [], true).map((stats) => ({ test: "t", stats })),
  );
  expect(plain).not.toContain("judge");
});

test("catalogs: tools/list pages merged, the last complete listing kept, other traffic ignored", () => {
  let seq = 0;
  const message = (
    direction: "to_server" | "from_server",
    body: object,
    server = "shop",
  ): TraceMessage => ({
    seq: seq++,
    server,
    connection: "c1",
    direction,
    kind: direction === "to_server" ? "request" : "response",
    at: seq,
    message: { jsonrpc: "2.0", ...body } as TraceMessage["message"],
    turnId: null,
  });
  const tool = (name: string, input: object = { type: "object" }) => ({
    name,
    inputSchema: input,
    description: `${name} tool`,
  });
  const messages = [
    message("to_server", { id: 1, method: "tools/list" }),
    message("from_server", { id: 1, result: { tools: [tool("old")] } }),
    // A second listing, in two pages: it replaces the first.
    message("to_server", { id: 2, method: "tools/list" }),
    message("from_server", { id: 2, result: { tools: [tool("b")], nextCursor: "p2" } }),
    message("to_server", { id: 3, method: "tools/list", params: { cursor: "p2" } }),
    message("from_server", {
      id: 3,
      result: { tools: [tool("a", { type: "object", properties: { x: { type: "number" } } })] },
    }),
    // Not a listing: a tools/call answer that happens to have a tools field.
    message("to_server", { id: 4, method: "tools/call", params: { name: "a" } }),
    message("from_server", { id: 4, result: { tools: [tool("fake")] } }),
    // Another server whose listing never completed (a page missing) is left out.
    message("to_server", { id: 1, method: "tools/list" }, "half"),
    message("from_server", { id: 1, result: { tools: [tool("x")], nextCursor: "more" } }, "half"),
  ];
  expect(catalogsOf(messages)).toEqual([
    {
      server: "shop",
      tools: [
        {
          name: "a",
          schemaHash: schemaHash({
            inputSchema: { type: "object", properties: { x: { type: "number" } } },
          }),
          description: "a tool",
        },
        {
          name: "b",
          schemaHash: schemaHash({ inputSchema: { type: "object" } }),
          description: "b tool",
        },
      ],
    },
  ]);
  // Key order does not change a schema's hash; a change of type does.
  expect(schemaHash({ inputSchema: { a: 1, b: 2 } })).toBe(
    schemaHash({ inputSchema: { b: 2, a: 1 } }),
  );
  expect(schemaHash({ inputSchema: { a: 1 } })).not.toBe(schemaHash({ inputSchema: { a: "1" } }));
});
