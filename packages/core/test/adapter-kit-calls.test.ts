/**
 * The adapter kit's parts for reading an agent's tool calls: a name under an agent's
 * unknown flattening rule mapped back to the session's server and tool.
 */
import { parseToolName } from "@jest-m3/core/adapter-kit";

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
