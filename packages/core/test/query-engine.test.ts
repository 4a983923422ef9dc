// The query engine on its own (no Jest formatting): trajectory modes, argument and result
// matching as m3 defines them, what each kind of evidence counts, near misses.
import { type ReportedToolCall } from "@jest-m3/core/harness";
import { correlateTurn } from "@jest-m3/core/testing";
import { QueryError, type Trace, type Unavailable } from "@jest-m3/core";
import {
  normalizeTrajectory,
  queryToolCalls,
  queryTrajectory,
  resultProjection,
  sameMultiset,
  suggestToolName,
  toQuerySubject,
  toolErrorText,
} from "@jest-m3/core/runner";
import { wireCalls } from "./support/tool-calls";

const unavailable = (reason: string): Unavailable => ({ unavailable: true, reason });

const call = wireCalls((n) => ({
  turnId: "exec/turn-1",
  server: "todo",
  connection: "todo#1",
  result: { content: [{ type: "text", text: "ok" }], structuredContent: { id: n } },
  startedAt: 1000 + n * 100,
  endedAt: 1050 + n * 100,
  latencyMs: 50,
}));

const search = call("search", { q: "milk" });
const add = call("add_todo", { title: "milk", tags: ["a", "b"] });
const list = call("list_todos", {});
const subject = toQuerySubject([search, add, list]);
const names = (steps: string[], mode: Parameters<typeof queryTrajectory>[2] = {}) =>
  queryTrajectory(subject, steps, mode).pass;

describe("trajectory modes", () => {
  test("strict: the same calls in the same order, nothing else", () => {
    expect(names(["search", "add_todo", "list_todos"])).toBe(true);
    expect(names(["search", "list_todos", "add_todo"])).toBe(false);
    expect(names(["search", "add_todo"])).toBe(false);
    const outcome = queryTrajectory(subject, ["search", "list_todos"]);
    expect(outcome.firstDifference).toBe(1);
    expect(outcome.unexpected.map((c) => c.tool)).toEqual(["add_todo"]);
  });

  test("unordered: the same multiset", () => {
    expect(names(["list_todos", "search", "add_todo"], { mode: "unordered" })).toBe(true);
    expect(names(["list_todos", "search"], { mode: "unordered" })).toBe(false);
    expect(names(["search", "search", "add_todo"], { mode: "unordered" })).toBe(false);
  });

  test("subset: every expected call happened", () => {
    expect(names(["list_todos", "search"], { mode: "subset" })).toBe(true);
    expect(names(["search", "search"], { mode: "subset" })).toBe(false);
  });

  test("superset: every observed call was expected", () => {
    expect(names(["search", "add_todo", "list_todos", "delete"], { mode: "superset" })).toBe(true);
    expect(names(["search", "add_todo"], { mode: "superset" })).toBe(false);
  });

  test("inOrder: a subsequence, others between allowed", () => {
    expect(names(["search", "list_todos"], { mode: "inOrder" })).toBe(true);
    expect(names(["list_todos", "search"], { mode: "inOrder" })).toBe(false);
  });

  test("arguments exact, partial or ignored; a partial step that fits two calls is still matched", () => {
    const step = { tool: "add_todo", arguments: { title: "milk" } };
    expect(queryTrajectory(subject, [step], { mode: "subset" }).pass).toBe(false);
    expect(
      queryTrajectory(subject, [step], { mode: "subset", argumentsMatch: "partial" }).pass,
    ).toBe(true);
    expect(
      queryTrajectory(subject, [{ tool: "add_todo", arguments: { nope: 1 } }], {
        mode: "subset",
        argumentsMatch: "ignored",
      }).pass,
    ).toBe(true);
    // Greedy matching would give the first call to the broad step and fail the narrow one.
    const twins = toQuerySubject([call("t", { a: 1, b: 1 }), call("t", { a: 1, b: 2 })]);
    expect(
      queryTrajectory(
        twins,
        [
          { tool: "t", arguments: { a: 1 } },
          { tool: "t", arguments: { b: 1 } },
        ],
        { mode: "unordered", argumentsMatch: "partial" },
      ).pass,
    ).toBe(true);
  });

  test("a missing step comes with the nearest unused call", () => {
    const outcome = queryTrajectory(
      subject,
      [{ tool: "add_todo", arguments: { title: "bread" } }],
      { mode: "subset", argumentsMatch: "partial" },
    );
    expect(outcome.missing[0]?.nearest?.call.tool).toBe("add_todo");
    expect(outcome.missing[0]?.nearest?.failed).toEqual(["arguments"]);
  });

  test("claims of absence refuse evidence with gaps; subset does not", () => {
    const trace: Trace = {
      messages: [],
      toolCalls: [search],
      events: [],
      gaps: [{ server: "todo", connection: "todo#1", at: 0, reason: "channel lost" }],
    };
    const gappy = toQuerySubject(trace);
    expect(() => queryTrajectory(gappy, ["search"])).toThrow(/evidence has gaps/);
    expect(() => queryTrajectory(gappy, ["search"], { mode: "superset" })).toThrow(QueryError);
    expect(queryTrajectory(gappy, ["search"], { mode: "subset" }).pass).toBe(true);
    expect(() => queryTrajectory(subject, ["x"], { mode: "sideways" as never })).toThrow(
      /mode must be/,
    );
  });
});

describe("filters", () => {
  test("result: m3's projection, exact unless partial, m3 spellings accepted", () => {
    expect(resultProjection(search)).toEqual({
      content: [{ type: "text", text: "ok" }],
      structuredContent: { id: search.id === "call-1" ? 1 : expect.any(Number) },
    });
    const structured = (search.result as { structuredContent: unknown }).structuredContent;
    expect(
      queryToolCalls(subject, {
        tool: "search",
        result: { structuredContent: structured },
        resultMatch: "exact",
      }).pass,
    ).toBe(false);
    expect(
      queryToolCalls(subject, {
        tool: "search",
        result: { structured_content: structured },
        resultMatch: "partial",
      }).pass,
    ).toBe(true);
    expect(
      queryToolCalls(subject, {
        tool: "search",
        result: {
          content: [{ type: "text", text: "ok" }],
          structuredContent: structured,
          isError: false,
        },
        resultMatch: "exact",
      }).pass,
    ).toBe(true);
  });

  test("a tool error's text, and a JSON-RPC error projected as { error }", () => {
    const failed = call(
      "add_todo",
      {},
      {
        status: "tool_error",
        result: { content: [{ type: "text", text: "title is required" }], isError: true },
      },
    );
    const denied = call(
      "drop",
      {},
      {
        status: "policy_denied",
        result: unavailable("the call was denied"),
        error: { code: -32001, message: "denied by policy" },
      },
    );
    expect(toolErrorText(failed)).toBe("title is required");
    expect(toolErrorText(denied)).toBe("denied by policy");
    expect(resultProjection(denied)).toEqual({
      error: { code: -32001, message: "denied by policy" },
    });
    expect(toolErrorText(search)).toBeNull();
  });

  test("latency, predicate, unordered argument arrays, a turn snapshot", () => {
    const slow = call("search", { q: "x" }, { latencyMs: 900 });
    const open = call(
      "search",
      { q: "y" },
      { latencyMs: unavailable("no response yet"), status: "incomplete" },
    );
    const s = toQuerySubject([search, slow, open]);
    expect(queryToolCalls(s, { minLatencyMs: 500 }).matches).toEqual([slow]);
    expect(queryToolCalls(s, { maxLatencyMs: 100 }).matches).toEqual([search]);
    expect(
      queryToolCalls(s, {
        predicate: (c) => c.arguments && (c.arguments as { q?: string }).q === "y",
      }).matches,
    ).toEqual([open]);
    expect(
      queryToolCalls(subject, { tool: "add_todo", arguments: { title: "milk", tags: ["b", "a"] } })
        .pass,
    ).toBe(false);
    expect(
      queryToolCalls(subject, {
        tool: "add_todo",
        arguments: { title: "milk", tags: ["b", "a"] },
        argumentsUnordered: true,
      }).pass,
    ).toBe(true);
    const snapshot = {
      turnId: "exec/turn-1",
      sessionId: "s",
      number: 1,
      lifecycle: "finished",
      outcome: "completed",
      createdAt: 0,
      finishedAt: 1,
    } as const;
    expect(queryToolCalls(subject, { tool: "search", turn: snapshot, count: 1 }).pass).toBe(true);
    expect(() => queryToolCalls(subject, { minLatencyMs: -1 })).toThrow(/minLatencyMs/);
  });

  test("near misses and did-you-mean", () => {
    const outcome = queryToolCalls(subject, {
      tool: "add_todo",
      arguments: { title: "bread", tags: ["a", "b"] },
    });
    expect(outcome.nearest?.call).toBe(add);
    expect(outcome.nearest?.failed).toEqual(["arguments"]);
    expect(queryToolCalls(subject, { tool: "add_todos" }).didYouMean).toBe("add_todo");
    expect(queryToolCalls(subject, { tool: "AddTodo" }).didYouMean).toBe("add_todo");
    expect(suggestToolName("refund", ["add_todo", "search"])).toBeNull();
    expect(sameMultiset([1, 2, 2], [2, 1, 2])).toBe(true);
    expect(sameMultiset([1, 2], [2, 2])).toBe(false);
  });
});

describe("what each kind of evidence counts", () => {
  const reported = (tool: string, args: Record<string, unknown>): ReportedToolCall => ({
    server: "todo",
    tool,
    arguments: args,
    result: { content: [] },
    status: "success",
  });
  let n = 0;
  const next = () => `reported-${++n}`;
  // Two wire calls of the same tool with other arguments than the three reports: ambiguous.
  const calls = correlateTurn(
    [call("search", { q: "a" }), call("search", { q: "b" })],
    [
      reported("search", { q: "c" }),
      reported("search", { q: "d" }),
      reported("search", { q: "e" }),
    ],
    "exec/turn-1",
    next,
  );
  const s = toQuerySubject(calls);

  test("the pairing is ambiguous on both sides", () => {
    expect(calls.map((c) => [c.evidence, c.correlation])).toEqual([
      ["wire", "ambiguous"],
      ["wire", "ambiguous"],
      ["reported", "ambiguous"],
      ["reported", "ambiguous"],
      ["reported", "ambiguous"],
    ]);
  });

  test("wire counts ambiguous wire calls; reported counts every report; any does not count a call twice", () => {
    expect(queryToolCalls(s, { tool: "search", count: 2 }).pass).toBe(true);
    expect(queryToolCalls(s, { tool: "search", evidence: "reported", count: 3 }).pass).toBe(true);
    const any = queryToolCalls(s, { tool: "search", evidence: "any", count: 2 });
    expect(any.pass).toBe(true);
    expect(any.notCounted.map((entry) => entry.reason)).toEqual([
      expect.stringMatching(/^ambiguous report/),
      expect.stringMatching(/^ambiguous report/),
      expect.stringMatching(/^ambiguous report/),
    ]);
  });
});

describe("trajectory normalization", () => {
  test("per turn, without ids or timings; each turn's calls in a canonical order, whatever their timing", () => {
    const at = (start: number, end: number) => ({
      startedAt: start,
      endedAt: end,
      latencyMs: end - start,
    });
    const calls = [
      call("zeta", { b: 1, a: 2 }, { turnId: "x/turn-1", ...at(0, 10) }),
      call("beta", {}, { turnId: "x/turn-1", ...at(20, 40) }),
      call("alpha", {}, { turnId: "x/turn-1", ...at(25, 30) }),
      call("omega", {}, { turnId: "x/turn-2", ...at(50, 60) }),
    ];
    const { turns } = normalizeTrajectory(toQuerySubject(calls));
    expect(turns).toEqual([
      {
        turn: "1",
        calls: [
          { server: "todo", tool: "alpha", arguments: {}, status: "success" },
          { server: "todo", tool: "beta", arguments: {}, status: "success" },
          { server: "todo", tool: "zeta", arguments: { a: 2, b: 1 }, status: "success" },
        ],
      },
      { turn: "2", calls: [{ server: "todo", tool: "omega", arguments: {}, status: "success" }] },
    ]);
    expect(JSON.stringify(turns[0]!.calls[2]!.arguments)).toBe('{"a":2,"b":1}');
    // The same calls at other times (parallel calls that did or did not overlap) give the same.
    const shifted = calls.map((one, index) => ({
      ...one,
      startedAt: 100 - index * 10,
      endedAt: 101 - index * 10,
    }));
    expect(normalizeTrajectory(toQuerySubject(shifted)).turns).toEqual(turns);
  });
});
