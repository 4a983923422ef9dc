import { InvalidServerSpec, MCPTestKit, type ServerSpec } from "@jest-m3/core";

describe("server specs are validated on use, before anything starts", () => {
  const kit = new MCPTestKit({ env: {} });
  afterAll(() => kit.close());

  const cases: Array<[string, unknown, string, RegExp]> = [
    ["not an object", "shipping", "(spec)", /must be an object/],
    ["missing name", { command: "node" }, "name", /non-empty string, got undefined/],
    ["blank name", { name: "  ", command: "node" }, "name", /non-empty string/],
    ["neither command nor url", { name: "s" }, "command", /give command .* or url/],
    ["a name with a colon", { name: "ship:ping", command: "node" }, "name", /only letters, digits/],
    [
      "a name with spaces and quotes",
      { name: 'my "server"', command: "node" },
      "name",
      /allow-list entries/,
    ],
    [
      "a name with a TOML dot-key breaker",
      { name: "a]b", command: "node" },
      "name",
      /only letters, digits/,
    ],
    [
      "both command and url",
      { name: "s", command: "node", url: "http://127.0.0.1/" },
      "url",
      /either stdio/,
    ],
    ["empty command", { name: "s", command: "" }, "command", /got an empty string/],
    ["args not an array", { name: "s", command: "node", args: "a b" }, "args", /array of strings/],
    [
      "a non-string arg",
      { name: "s", command: "node", args: ["ok", 3] },
      "args[1]",
      /must be a string, got number 3/,
    ],
    [
      "env value not a string",
      { name: "s", command: "node", env: { PORT: 80 } },
      "env.PORT",
      /must be a string/,
    ],
    [
      "cwd missing on disk",
      { name: "s", command: "node", cwd: "/definitely/not/here" },
      "cwd",
      /not an existing directory/,
    ],
    [
      "unknown stdio key",
      { name: "s", command: "node", argv: [] },
      "argv",
      /fields are name, command, args, env, cwd/,
    ],
    [
      "unknown http key",
      { name: "s", url: "http://127.0.0.1/", header: {} },
      "header",
      /fields are name, url, headers/,
    ],
    ["malformed url", { name: "s", url: "not a url" }, "url", /not a valid URL/],
    ["non-http url", { name: "s", url: "file:///tmp/x" }, "url", /http: or https:/],
    [
      "header not a string",
      { name: "s", url: "http://127.0.0.1/", headers: { a: 1 } },
      "headers.a",
      /must be a string/,
    ],
  ];

  test.each(cases)("%s", (_label, spec, field, problem) => {
    let caught: unknown;
    try {
      kit.direct(spec as ServerSpec);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidServerSpec);
    const error = caught as InvalidServerSpec;
    expect(error.name).toBe("InvalidServerSpec");
    expect(error.field).toBe(field);
    expect(error.message).toMatch(problem);
    expect(error.message).toContain(`field "${field}"`);
    expect(kit.processes).toEqual([]);
  });

  test("the error names the server", () => {
    expect(() =>
      kit.direct({ name: "shipping", command: "node", args: [1] } as unknown as ServerSpec),
    ).toThrow('Server "shipping": field "args[0]" must be a string, got number 1.');
  });

  test("paths with spaces, unicode and shell metacharacters are passed verbatim, never to a shell", async () => {
    const client = kit.direct({
      name: "argv",
      command: process.execPath,
      args: [
        "-e",
        "process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:0,result:{protocolVersion:'2025-06-18',capabilities:{},serverInfo:{name:JSON.stringify(process.argv.slice(1)),version:'1'}}})+'\\n'); process.stdin.resume()",
        "a b",
        "ünï cødé",
        "$(touch /tmp/m3-pwned); `id` | && ;",
      ],
    });
    const identity = await client.initialize();
    expect(JSON.parse(identity.serverInfo!.name)).toEqual([
      "a b",
      "ünï cødé",
      "$(touch /tmp/m3-pwned); `id` | && ;",
    ]);
  });
});
