// One schema approach for every entry point: each refusal names the path of the field in
// what the caller wrote ("servers[1].env.PATH"), says what is wrong and what came in, and
// suggests the nearest field for a misspelt key. The same rule (an http(s) URL) words its
// refusal the same wherever it applies. And the schemas agree with the exported types.
import {
  InvalidArgument,
  InvalidSelection,
  InvalidServerSpec,
  InvalidSessionOptions,
  M3Error,
  MCPTestKit,
  type AgentSelectionInput,
  type AgentsOptions,
  type CaptureOptions,
  type DirectClientOptions,
  type HttpServer,
  type MCPTestKitOptions,
  type SendOptions,
  type SessionOptions,
  type StdioServer,
} from "@jest-m3/core";
import { testHarness } from "@jest-m3/core/testing";
import type { z } from "zod";
import type { httpServerSchema, stdioServerSchema } from "../src/servers/spec";
import type { selectionSchema } from "../src/agents/selection";
import type { sendOptionsSchema, sessionOptionsSchema } from "../src/agents/session-spec";
import type { agentsOptionsSchema, captureOptionsSchema, kitOptionsSchema } from "../src/kit/kit";
import type { directClientOptionsSchema } from "../src/direct/client-options";
import { shipping } from "./support/servers";

/** The error `work` throws (it must throw an M3Error). */
function refusal(work: () => unknown): M3Error {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(M3Error);
    return error as M3Error;
  }
  throw new Error("expected a refusal, but the call succeeded");
}

describe("every entry point refuses bad input with the field's path, the problem and a fix", () => {
  const kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  afterAll(() => kit.close());
  const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);

  test("a misspelt key is named, with the fields and the nearest one", () => {
    const cases: Array<[() => unknown, new (...args: never[]) => M3Error, string]> = [
      [
        () => new MCPTestKit({ killGraceMS: 5 } as never),
        InvalidArgument,
        'new MCPTestKit(): option "killGraceMS" is unknown; the options are env, cwd, killGraceMs, harnesses, runtime. Did you mean "killGraceMs"?',
      ],
      [
        () => kit.agents([{ harness: "test", model: ["m"] } as never]),
        InvalidSelection,
        'field "model" is not a selection field; the fields are harness, models, name, executable, credentialEnv, provider, options. Did you mean "models"?',
      ],
      [
        () => kit.agents([{ harness: "test", models: ["m"] }], { trails: 2 } as never),
        InvalidArgument,
        'kit.agents(): trails is not an agents() option; the options are trials. Did you mean "trials"?',
      ],
      [
        () =>
          kit.agents([
            {
              harness: "test",
              models: ["m"],
              provider: { name: "p", baseUrl: "http://127.0.0.1:1/v1", wireapi: "responses" },
            } as never,
          ]),
        InvalidSelection,
        'field "provider.wireapi" is not a provider field; the fields are name, baseUrl, wireApi, envKey. Did you mean "wireApi"?',
      ],
      [
        () => agent!.session({ server: shipping, timeuot: 5 } as never),
        InvalidSessionOptions,
        'Session option "timeuot" is unknown; the options are server, servers, tools, timeout, elicitation, workspace. Did you mean "timeout"?',
      ],
      [
        () => agent!.session({ servers: [{ ...shipping, enc: {} }] } as never),
        InvalidServerSpec,
        'Server "shipping": field "servers[0].enc" is not a StdioServer field; the fields are name, command, args, env, cwd. Did you mean "env"?',
      ],
      [
        () => kit.direct(shipping, { timeoutMS: 5 } as never),
        InvalidArgument,
        'kit.direct("shipping"): timeoutMS is not a kit.direct() option; the options are timeoutMs, startTimeoutMs, clientInfo, protocolVersion, validateSchemas, sampling, roots, elicitation, elicitationModes, capabilities, auth. Did you mean "timeoutMs"?',
      ],
      [
        () => kit.direct({ name: "s", url: "http://127.0.0.1:1/mcp", header: {} } as never),
        InvalidServerSpec,
        'field "header" is not a HttpServer field; the fields are name, url, headers. Did you mean "headers"?',
      ],
    ];
    for (const [work, type, message] of cases) {
      const error = refusal(work);
      expect(error).toBeInstanceOf(type);
      expect(error.message).toContain(message);
    }
    // A key nothing resembles gets the list, and no guess.
    const error = refusal(() => agent!.session({ server: shipping, colour: "red" } as never));
    expect(error.message).toContain(
      "the options are server, servers, tools, timeout, elicitation, workspace.",
    );
    expect(error.message).not.toContain("Did you mean");
    expect(kit.processes).toEqual([]);
  });

  test("a problem deep in a session's servers names its path from the options' root", () => {
    const second = { name: "second", command: "node", env: { PATH: 3 } };
    const error = refusal(() => agent!.session({ servers: [shipping, second] } as never));
    expect(error).toBeInstanceOf(InvalidServerSpec);
    expect((error as InvalidServerSpec).field).toBe("servers[1].env.PATH");
    expect(error.message).toBe(
      'Server "second": field "servers[1].env.PATH" must be a string, got number 3.',
    );
    const single = refusal(() =>
      agent!.session({ server: { ...shipping, args: ["ok", 7] } } as never),
    );
    expect((single as InvalidServerSpec).field).toBe("server.args[1]");
    const duplicate = refusal(() => agent!.session({ servers: [shipping, shipping] }));
    expect((duplicate as InvalidServerSpec).field).toBe("servers[1].name");
    expect(duplicate.message).toMatch(/is used by two servers/);
    // kit.direct() takes one spec: its fields are the spec's own.
    const direct = refusal(() => kit.direct({ ...shipping, env: { PATH: 3 } } as never));
    expect((direct as InvalidServerSpec).field).toBe("env.PATH");
    expect(kit.processes).toEqual([]);
  });

  test("one URL rule: a server's url and a provider's baseUrl are refused alike", () => {
    const select = (baseUrl: string): unknown =>
      kit.agents([
        { harness: "test", models: ["m"], provider: { name: "p", baseUrl, wireApi: "responses" } },
      ]);
    for (const url of ["not a url", "file:///tmp/x", "http://"]) {
      const server = refusal(() => kit.direct({ name: "s", url }));
      const provider = refusal(() => select(url));
      const serverProblem = server.message.split('field "url" ')[1];
      const providerProblem = provider.message.split('field "provider.baseUrl" ')[1];
      expect(serverProblem).toBeDefined();
      expect(providerProblem).toBe(serverProblem);
      expect(serverProblem).toContain("give an http(s) URL with a host");
    }
    expect(() => select("http://127.0.0.1:1/v1")).not.toThrow();
  });

  test("rules between fields live in the same schemas", () => {
    const envKey = refusal(() =>
      kit.agents([
        {
          harness: "test",
          models: ["m"],
          provider: {
            name: "p",
            baseUrl: "http://127.0.0.1:1/v1",
            wireApi: "responses",
            envKey: "KEY",
          },
        },
      ]),
    );
    expect(envKey.message).toContain(
      'field "provider.envKey" must name a child variable mapped in credentialEnv, got "KEY".',
    );
    const capture = kit.capture({ servers: [shipping], tools: ["billing:charge"] });
    return expect(capture).rejects.toThrow(/names server "billing", which is not bound/);
  });

  test("the wrong kind of value says what came in", () => {
    expect(
      refusal(() => kit.agents([{ harness: "test", models: ["m"] }], { trials: 1.5 })).message,
    ).toBe("kit.agents(): trials must be a positive integer, got number 1.5.");
    expect(refusal(() => new MCPTestKit({ env: { A: 1 } } as never)).message).toMatch(
      /option "env\.A" must be a string, got number 1\./,
    );
    expect(
      refusal(() => kit.direct(shipping, { roots: [{ uri: "file:///a" }, { name: "b" }] } as never))
        .message,
    ).toBe('kit.direct("shipping"): roots[1].uri must be a URI string, got undefined.');
    expect(
      refusal(() => kit.direct(shipping, { elicitationModes: ["form", "sms"] } as never)).message,
    ).toBe('kit.direct("shipping"): elicitationModes[1] must be "form" or "url", got "sms".');
    expect(refusal(() => agent!.session({ server: shipping, timeout: Infinity })).message).toBe(
      'Session option "timeout" must be a positive number of milliseconds, got number Infinity.',
    );
    return expect(kit.capture({ servers: shipping } as unknown as CaptureOptions)).rejects.toThrow(
      /kit.capture\(\): servers must be an array of server specs, got an object/,
    );
  });
});

// The schemas and the exported types must not drift apart: the same keys, and every value
// the type allows passes the schema's shape.
type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
type SameKeys<A, B> = [keyof A] extends [keyof B]
  ? [keyof B] extends [keyof A]
    ? true
    : false
  : false;
type Accepts<Type, Schema extends z.ZodType> = [Type] extends [DeepReadonly<z.input<Schema>>]
  ? true
  : false;
type Agrees<Type, Schema extends z.ZodType> =
  SameKeys<Type, NonNullable<z.input<Schema>>> extends true ? Accepts<Type, Schema> : false;

const agreement: {
  stdio: Agrees<StdioServer, typeof stdioServerSchema>;
  http: Agrees<HttpServer, typeof httpServerSchema>;
  selection: Agrees<AgentSelectionInput, typeof selectionSchema>;
  session: SameKeys<SessionOptions, z.input<typeof sessionOptionsSchema>>;
  send: Agrees<SendOptions, typeof sendOptionsSchema>;
  kit: SameKeys<MCPTestKitOptions, z.input<typeof kitOptionsSchema>>;
  agents: Agrees<AgentsOptions, typeof agentsOptionsSchema>;
  capture: SameKeys<CaptureOptions, z.input<typeof captureOptionsSchema>>;
  direct: SameKeys<DirectClientOptions, z.input<typeof directClientOptionsSchema>>;
} = {
  stdio: true,
  http: true,
  selection: true,
  session: true,
  send: true,
  kit: true,
  agents: true,
  capture: true,
  direct: true,
};

test("the schemas agree with the exported types (checked by the compiler)", () => {
  expect(Object.values(agreement).every(Boolean)).toBe(true);
});
