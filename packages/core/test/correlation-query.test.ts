import { type ReportedToolCall } from "@jest-m3/core/harness";
import { correlateTurn } from "@jest-m3/core/testing";
import { QueryError } from "@jest-m3/core";
import { queryToolCalls, toQuerySubject } from "@jest-m3/core/runner";
import { wireCalls } from "./support/tool-calls";

const wire = wireCalls(() => ({
  result: {
    content: [{ type: "text", text: "ok" }],
    structuredContent: { amount: 9, currency: "USD" },
  },
}));
function reported(
  tool: string,
  args: Record<string, unknown>,
  extra: Partial<ReportedToolCall> = {},
): ReportedToolCall {
  return {
    server: "shipping",
    tool,
    arguments: args,
    result: { content: [] },
    status: "success",
    ...extra,
  };
}
const next = (() => {
  let n = 0;
  return () => `reported-${++n}`;
})();

describe("correlating wire and reported calls", () => {
  test("equal canonical arguments pair, whatever the key order", () => {
    const calls = correlateTurn(
      [wire("q", { a: 1, b: 2 }), wire("q", { a: 3, b: 4 })],
      [reported("q", { b: 4, a: 3 }), reported("q", { b: 2, a: 1 })],
      "t1",
      next,
    );
    expect(
      calls.map((call) => [call.evidence, call.correlation, call.reported?.arguments]),
    ).toEqual([
      ["both", "correlated", { b: 2, a: 1 }],
      ["both", "correlated", { b: 4, a: 3 }],
    ]);
  });

  test("a harness id in another id space never pairs by itself", () => {
    const first = wire("q", { a: 1 });
    const calls = correlateTurn(
      [first, wire("q", { a: 2 })],
      [reported("q", { a: 99 }, { id: String(first.jsonrpcId) })],
      "t1",
      next,
    );
    expect(calls.map((call) => call.correlation)).toEqual(["ambiguous", "ambiguous", "ambiguous"]);
  });

  test("a shared JSON-RPC id is authoritative", () => {
    const first = wire("q", { a: 1 });
    const calls = correlateTurn(
      [first],
      [reported("q", { a: 99 }, { id: "call_x", jsonrpcId: first.jsonrpcId as number })],
      "t1",
      next,
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ evidence: "both", correlation: "correlated" });
  });

  test("leftovers pair in order only when the counts agree", () => {
    const calls = correlateTurn([wire("q", { a: 1 })], [reported("q", { a: "1" })], "t1", next);
    expect(calls.map((call) => call.correlation)).toEqual(["correlated"]);
  });

  test("unequal counts with differing arguments stay unpaired and say they are ambiguous", () => {
    const calls = correlateTurn(
      [wire("q", { a: 1 }), wire("q", { a: 2 })],
      [reported("q", { a: 3 })],
      "t1",
      next,
    );
    expect(calls.map((call) => [call.evidence, call.correlation])).toEqual([
      ["wire", "ambiguous"],
      ["wire", "ambiguous"],
      ["reported", "ambiguous"],
    ]);
    expect(calls[0]?.correlationNote).toBe(
      "2 wire call(s) and 1 reported call(s) of shipping:q could not be paired with certainty",
    );
  });

  test("a reported call with no wire call is reported_only, its wire fields unavailable", () => {
    const [call] = correlateTurn([], [reported("q", { a: 1 })], "t1", next);
    expect(call).toMatchObject({ evidence: "reported", correlation: "reported_only" });
    expect(call?.jsonrpcId).toEqual({
      unavailable: true,
      reason: expect.stringContaining("not observed on the wire"),
    });
    expect(call?.startedAt).toEqual({ unavailable: true, reason: expect.any(String) });
  });
});

describe("the tool-call query engine", () => {
  const calls = [
    wire("shipping_quote", { weight_kg: 2, zone: "local" }),
    wire(
      "shipping_quote",
      { weight_kg: 3, zone: "regional" },
      { turnId: "t2", status: "tool_error" },
    ),
    wire("lookup", { id: 7 }, { server: "billing" }),
    wire("lookup", { id: 8 }, { server: "crm" }),
    { ...wire("hidden", {}), evidence: "reported" as const, reported: reported("hidden", {}) },
  ];
  const subject = {
    ...toQuerySubject(calls),
    turns: new Map([
      [1, "t1"],
      [2, "t2"],
    ]),
  };

  test("filters by tool, server, turn (id or number), status, arguments exact and partial, result partial", () => {
    expect(queryToolCalls(subject, { tool: "shipping_quote" }).matches).toHaveLength(2);
    expect(queryToolCalls(subject, { tool: "shipping_quote", turn: 2 }).matches[0]?.turnId).toBe(
      "t2",
    );
    expect(
      queryToolCalls(subject, { tool: "shipping_quote", turn: "t1", status: "success", count: 1 })
        .pass,
    ).toBe(true);
    expect(queryToolCalls(subject, { arguments: { weight_kg: 2 } }).pass).toBe(false);
    expect(
      queryToolCalls(subject, { arguments: { weight_kg: 2 }, argumentsMatch: "partial" }).pass,
    ).toBe(true);
    expect(queryToolCalls(subject, { arguments: { zone: "local", weight_kg: 2 } }).pass).toBe(true);
    expect(
      queryToolCalls(subject, {
        result: { structuredContent: { amount: 9, currency: "USD" } },
        count: 4,
      }).pass,
    ).toBe(true);
  });

  test("counts: exact, at least, at most, between", () => {
    expect(queryToolCalls(subject, { tool: "shipping_quote", count: 2 }).pass).toBe(true);
    expect(queryToolCalls(subject, { tool: "shipping_quote", count: 1 }).pass).toBe(false);
    expect(queryToolCalls(subject, { tool: "shipping_quote", minCount: 3 }).expectedCount).toBe(
      "at least 3",
    );
    expect(queryToolCalls(subject, { tool: "shipping_quote", maxCount: 1 }).pass).toBe(false);
    expect(queryToolCalls(subject, { tool: "nothing", count: 0 }).pass).toBe(true);
  });

  test("wire evidence by default; reported and any on request", () => {
    expect(queryToolCalls(subject, { tool: "hidden" }).pass).toBe(false);
    expect(queryToolCalls(subject, { tool: "hidden", evidence: "reported" }).pass).toBe(true);
    expect(queryToolCalls(subject, { tool: "hidden", evidence: "any" }).pass).toBe(true);
  });

  test("a pluggable equality (Jest's asymmetric matchers go through it)", () => {
    const anyNumber = Symbol("any number");
    const equals = (actual: unknown, expected: unknown): boolean =>
      expected === anyNumber
        ? typeof actual === "number"
        : JSON.stringify(actual) === JSON.stringify(expected);
    const outcome = queryToolCalls(
      subject,
      { arguments: { weight_kg: anyNumber }, argumentsMatch: "partial" },
      { equals },
    );
    expect(outcome.matches).toHaveLength(2);
  });

  test("usage errors: a tool on several servers without server, count with minCount, negative on a live subject", () => {
    expect(() => queryToolCalls(subject, { tool: "lookup" })).toThrow(QueryError);
    expect(() => queryToolCalls(subject, { tool: "lookup" })).toThrow(
      /several servers \(billing, crm\); say which with \{ server \}/,
    );
    expect(queryToolCalls(subject, { tool: "lookup", server: "crm" }).pass).toBe(true);
    expect(() => queryToolCalls(subject, { count: 1, minCount: 1 })).toThrow(/cannot be combined/);
    const live = toQuerySubject({
      trace: { messages: [], toolCalls: calls, events: [], gaps: [] },
    });
    expect(() => queryToolCalls(live, { tool: "x", count: 0 })).toThrow(/needs a finished subject/);
    expect(() => toQuerySubject(42)).toThrow(/Expected an ExecutionResult/);
  });
});

describe("negative queries and evidence gaps", () => {
  test("a negative cannot pass across a gap in the evidence", () => {
    const trace = {
      messages: [],
      toolCalls: [],
      events: [],
      gaps: [
        { server: "shipping", connection: "relay-1", at: 1, reason: "the relay's channel closed" },
      ],
    };
    const subject = toQuerySubject(trace);
    expect(() => queryToolCalls(subject, { tool: "refund", count: 0 })).toThrow(
      /Cannot prove that a call did not happen \(nor an exact count\): the evidence has gaps \(shipping: the relay.s channel closed\)/,
    );
    expect(queryToolCalls(subject, { tool: "refund", minCount: 0 }).pass).toBe(true);
  });
});

describe("review fixes in the query and correlation", () => {
  test("maxCount alone allows zero calls", () => {
    const subject = toQuerySubject([wire("shipping_quote", { weight_kg: 1 })]);
    expect(queryToolCalls(subject, { tool: "refund", maxCount: 0 }).pass).toBe(true);
    expect(queryToolCalls(subject, { tool: "refund", maxCount: 2 }).pass).toBe(true);
    expect(queryToolCalls(subject, { tool: "shipping_quote", maxCount: 0 }).pass).toBe(false);
  });

  test("a shared JSON-RPC id pairs only within the same server and tool", () => {
    const read = wire("read", { a: 1 }, { server: "alpha" });
    const calls = correlateTurn(
      [read],
      [reported("delete", { a: 1 }, { server: "beta", jsonrpcId: read.jsonrpcId as number })],
      "t1",
      next,
    );
    expect(calls.map((call) => [call.server, call.tool, call.correlation])).toEqual([
      ["alpha", "read", "wire_only"],
      ["beta", "delete", "reported_only"],
    ]);
  });

  test("an exact count cannot pass across a gap either", () => {
    const subject = toQuerySubject({
      messages: [],
      toolCalls: [wire("q", {})],
      events: [],
      gaps: [{ server: "shipping", connection: "relay-1", at: 1, reason: "lost" }],
    });
    expect(() => queryToolCalls(subject, { tool: "q", count: 1 })).toThrow(/nor an exact count/);
    expect(queryToolCalls(subject, { tool: "q" }).pass).toBe(true);
  });
});
