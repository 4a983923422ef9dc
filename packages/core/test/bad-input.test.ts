// Every public entry point checks its input and says what is wrong before anything starts:
// a misspelt option or an impossible value must never silently mean something else.
import { M3Error, MCPTestKit } from "@jest-m3/core";
import { testHarness } from "@jest-m3/core/testing";
import { isRunning } from "./support/processes";
import { shipping } from "./support/servers";

const codeOf = (work: () => unknown): string | undefined => {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(M3Error);
    return (error as M3Error).code;
  }
  return undefined;
};

describe("bad input is refused before anything starts", () => {
  test.each([
    [{ enviroment: {} }, /option "enviroment" is unknown/],
    [{ killGraceMs: Infinity }, /killGraceMs" must be a number of milliseconds from 0 to 60000/],
    [{ killGraceMs: -1 }, /killGraceMs/],
    [{ env: "M3_X=1" }, /option "env" must be an object/],
    [{ harnesses: {} }, /harnesses" must be an array/],
  ])("new MCPTestKit(%j)", (options, message) => {
    expect(() => new MCPTestKit(options as never)).toThrow(message);
    expect(codeOf(() => new MCPTestKit(options as never))).toBe("M3_INVALID_ARGUMENT");
  });

  test("sessions, selections and specs", async () => {
    await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const cases: Array<[() => unknown, string, RegExp]> = [
      [() => agent!.session({}), "M3_INVALID_SESSION_OPTIONS", /names no server/],
      [() => agent!.session({ servers: [] }), "M3_INVALID_SESSION_OPTIONS", /names no server/],
      [
        () => agent!.session({ server: undefined }),
        "M3_INVALID_SESSION_OPTIONS",
        /names no server/,
      ],
      [
        () => agent!.session({ server: shipping, timeout: 2 ** 31 }),
        "M3_INVALID_SESSION_OPTIONS",
        /at most 2147483647 ms/,
      ],
      [
        () => kit.agents([{ harness: "test", models: ["m"], credentialEnv: { PATH: "HOME" } }]),
        "M3_INVALID_SELECTION",
        /already takes from the host/,
      ],
      [
        () => kit.agents([{ harness: "test", models: ["m"], credentialEnv: { "A=B": "HOME" } }]),
        "M3_INVALID_SELECTION",
        /is not a variable name/,
      ],
      [
        () =>
          kit.agents([
            {
              harness: "test",
              models: ["m"],
              provider: { name: "p", baseUrl: "http://", wireApi: "responses" },
            },
          ]),
        "M3_INVALID_SELECTION",
        /http\(s\) URL with a host/,
      ],
      [
        () => kit.direct({ name: "x", url: "http://127.0.0.1:1/mcp", headers: { a: "b\r\nx: y" } }),
        "M3_INVALID_SERVER_SPEC",
        /contains CR, LF or NUL/,
      ],
      [
        () => kit.direct({ name: "x", url: "http://127.0.0.1:1/mcp", headers: { "a b": "c" } }),
        "M3_INVALID_SERVER_SPEC",
        /not a valid HTTP header name/,
      ],
      [
        () => kit.direct({ name: "x", command: "node", args: ["a\u0000b"] }),
        "M3_INVALID_SERVER_SPEC",
        /NUL byte/,
      ],
      [
        () => kit.direct({ name: "x", command: "no\u0000de" }),
        "M3_INVALID_SERVER_SPEC",
        /NUL byte/,
      ],
      [
        () => kit.direct({ name: "x", command: "node", env: { "A=B": "c" } }),
        "M3_INVALID_SERVER_SPEC",
        /not a valid environment variable name/,
      ],
      [
        () => kit.direct({ name: "x", command: "node", env: { A: "c\u0000" } }),
        "M3_INVALID_SERVER_SPEC",
        /NUL byte/,
      ],
    ];
    for (const [work, code, message] of cases) {
      expect(work).toThrow(message);
      expect(codeOf(work)).toBe(code);
    }
    expect(kit.processes).toEqual([]);
  });

  test("send() refuses unknown options and impossible timeouts before the turn starts", async () => {
    await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const session = agent!.session({ server: shipping });
    await using open = await session.open();
    await expect(open.send("reply hi", { timout: 5 } as never)).rejects.toThrow(
      /"timout" is not a send\(\) option/,
    );
    await expect(open.send("reply hi", { timeout: 2 ** 31 })).rejects.toThrow(/at most/);
    // Nothing was sent: the session takes the next turn as its first.
    const turn = await open.send("reply hi");
    expect(turn.snapshot.number).toBe(1);
    expect(kit.processes.every((child) => isRunning(child.pid))).toBe(true);
  });
});
