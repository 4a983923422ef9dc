import {
  InvalidArgument,
  InvalidSessionOptions,
  M3Error,
  M3Runtime,
  MCPTestKit,
  type ModelProvider,
} from "@jest-m3/core";
import { defaultRuntime, singleProvider } from "@jest-m3/core/runner";
import { testHarness } from "@jest-m3/core/testing";
import { shipping } from "./support/servers";

const responses: ModelProvider = {
  name: "a",
  baseUrl: "http://127.0.0.1:1/v1",
  wireApi: "responses",
};
const anthropic: ModelProvider = {
  name: "b",
  baseUrl: "http://127.0.0.1:2",
  wireApi: "anthropic-messages",
};

describe("runtime", () => {
  test("two kits with different run providers coexist in one process", async () => {
    const harness = testHarness();
    await using first = new MCPTestKit({
      env: {},
      harnesses: [harness],
      runtime: new M3Runtime({ provider: { source: singleProvider(responses), label: "first" } }),
    });
    await using second = new MCPTestKit({
      env: {},
      harnesses: [harness],
      runtime: new M3Runtime(),
    });
    const [a] = first.agents([{ harness: "test", models: ["m"] }]);
    const [b] = second.agents([{ harness: "test", models: ["m"] }]);
    expect(a!.spec.provider).toEqual(responses);
    expect(b!.spec.provider).toBeUndefined();
  });

  test("a run provider answers each harness in its own dialect, or not at all", async () => {
    const speaksAnthropic = {
      ...testHarness(),
      name: "claude-like",
      dialects: ["anthropic-messages" as const],
    };
    const source = {
      providerFor: (dialect: string) =>
        dialect === "anthropic-messages"
          ? anthropic
          : dialect === "responses"
            ? responses
            : undefined,
    };
    await using kit = new MCPTestKit({
      env: {},
      harnesses: [testHarness(), speaksAnthropic],
      runtime: new M3Runtime({ provider: { source, label: "test" } }),
    });
    const [codexLike] = kit.agents([{ harness: "test", models: ["m"] }]);
    const [claudeLike] = kit.agents([{ harness: "claude-like", models: ["m"] }]);
    expect(codexLike!.spec.provider?.wireApi).toBe("responses");
    expect(claudeLike!.spec.provider).toEqual(anthropic);
    // An explicit provider in a dialect the harness does not speak is refused, naming both.
    expect(() =>
      kit.agents([{ harness: "claude-like", models: ["m"], provider: responses }]),
    ).toThrow(/"claude-like" harness speaks \("anthropic-messages"\), got "responses"/);
  });

  test("kits are tracked and observed by their own runtime only", async () => {
    const runtime = new M3Runtime();
    const dirs: string[] = [];
    runtime.observe({ tempDirCreated: (path) => dirs.push(path) });
    const kit = new MCPTestKit({ env: {}, runtime });
    const other = new MCPTestKit({ env: {} });
    expect(runtime.openKits()).toEqual([kit]);
    expect(defaultRuntime().openKits()).toContain(other);
    await kit.tempDir();
    await other.tempDir();
    expect(dirs).toHaveLength(1);
    await kit.close();
    await other.close();
    expect(runtime.openKits()).toEqual([]);
  });
});

describe("errors", () => {
  test("every user mistake has a stable code and says what to do", async () => {
    await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const mistakes: Array<[() => unknown, string]> = [
      [() => kit.agents([]), "M3_INVALID_ARGUMENT"],
      [
        () => kit.agents([{ harness: "test", models: ["m"] }], { trials: 0 }),
        "M3_INVALID_ARGUMENT",
      ],
      [() => agent!.session({ server: shipping, timeout: -1 }), "M3_INVALID_SESSION_OPTIONS"],
      [() => agent!.session({ server: shipping, bogus: 1 } as never), "M3_INVALID_SESSION_OPTIONS"],
      [() => agent!.session({ server: shipping, tools: ["nope:x"] }), "M3_INVALID_TOOL_POLICY"],
      [() => kit.agents([{ harness: "nope", models: ["m"] }]), "M3_UNKNOWN_HARNESS"],
      [() => kit.direct({ name: "x" } as never), "M3_INVALID_SERVER_SPEC"],
    ];
    for (const [mistake, code] of mistakes) {
      let thrown: unknown;
      try {
        mistake();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(M3Error);
      expect((thrown as M3Error).code).toBe(code);
    }
    expect(() => kit.agents([])).toThrow(InvalidArgument);
    expect(() => agent!.session({ server: shipping, timeout: 0 })).toThrow(InvalidSessionOptions);
  });

  test("a result's error is structured: code, message, retryable", async () => {
    await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
    const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
    const session = agent!.session({ server: shipping, timeout: 30_000 });
    {
      await using open = await session.open();
      const turn = await open.send("hang", { timeout: 300 });
      expect(turn.error).toEqual({
        code: "M3_TURN_TIMEOUT",
        message: expect.stringMatching(/did not finish within 300 ms/),
        retryable: true,
        details: { timeoutMs: 300 },
      });
    }
    expect(session.result.error?.code).toBe("M3_TURN_TIMEOUT");
  });
});

describe("secrets by value", () => {
  test("a credential a harness or provider echoes back is scrubbed from the turn's texts and errors", async () => {
    const planted = "sk-planted-0123456789";
    process.env.M3_TEST_PLANTED_KEY = planted;
    try {
      const runtime = new M3Runtime();
      await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()], runtime });
      const [agent] = kit.agents([
        {
          harness: "test",
          models: ["m"],
          credentialEnv: { OPENAI_API_KEY: "M3_TEST_PLANTED_KEY" },
        },
      ]);
      const session = agent!.session({ server: shipping });
      {
        await using open = await session.open();
        const turn = await open.send(`fail invalid key: Bearer ${planted}`);
        expect(turn.error?.message).toContain("[redacted: M3_TEST_PLANTED_KEY]");
        expect(JSON.stringify(turn)).not.toContain(planted);
      }
      expect(JSON.stringify(session.result.turns)).not.toContain(planted);
      expect(session.result.error?.message).not.toContain(planted);
      expect(runtime.secrets()).toEqual([{ name: "M3_TEST_PLANTED_KEY", value: planted }]);
    } finally {
      delete process.env.M3_TEST_PLANTED_KEY;
    }
  });
});
