/**
 * The adapter kit's parts for reading an agent's tool calls: a name under an agent's
 * unknown flattening rule mapped back to the session's server and tool, and a call's
 * report in the one wording.
 */
import { parseToolName, reportedCall } from "@jest-m3/core/adapter-kit";
import { unavailable } from "@jest-m3/core/harness";

describe("parseToolName", () => {
  test.each([
    ["mcp__shipping__quote", "quote"],
    ["mcp_shipping_quote", "quote"],
    ["shipping__quote", "quote"],
    ["shipping:quote", "quote"],
    ["shipping/quote", "quote"],
    ["shipping_quote", "quote"],
  ])("reads %s as shipping's %s", (name, tool) => {
    expect(parseToolName(name, ["shipping"])).toEqual({ server: "shipping", tool });
  });

  test("the longest server name wins, and a server's name is matched as it is", () => {
    expect(parseToolName("a_b_c", ["a", "a_b"])).toEqual({ server: "a_b", tool: "c" });
    expect(parseToolName("a.b:c", ["a.b"])).toEqual({ server: "a.b", tool: "c" });
    expect(parseToolName("aXb:c", ["a.b"])).toBeUndefined();
  });

  test("display text and names of no session server are not tool names", () => {
    expect(parseToolName("shipping quote", ["shipping"])).toBeUndefined();
    expect(parseToolName("ledger__erase", ["shipping"])).toBeUndefined();
  });
});

describe("reportedCall", () => {
  const names = { agent: "My Agent" };
  const base = { id: "c1", server: "shipping", tool: "quote", status: "success" as const };

  test("an object's arguments and the result are kept; unsaid fields are left out", () => {
    const result = { content: [{ type: "text", text: "4.20" }] };
    expect(reportedCall(names, { ...base, arguments: { kg: 2 }, result, startedAt: 5 })).toEqual({
      ...base,
      arguments: { kg: 2 },
      result,
      startedAt: 5,
    });
  });

  test("arguments that are no object, and a missing result, are unavailable in the agent's name", () => {
    const call = reportedCall(names, {
      ...base,
      arguments: "kg=2",
      result: undefined,
      status: "incomplete",
      error: "the turn failed",
    });
    expect(call).toEqual({
      ...base,
      status: "incomplete",
      error: "the turn failed",
      arguments: unavailable('My Agent reported the arguments as "kg=2", not an object'),
      result: unavailable("My Agent reported no result: the turn failed"),
    });
    expect(reportedCall(names, { ...base, arguments: undefined, result: undefined })).toEqual({
      ...base,
      arguments: unavailable("My Agent reported no arguments for this call"),
      result: unavailable("My Agent reported no result"),
    });
  });
});
