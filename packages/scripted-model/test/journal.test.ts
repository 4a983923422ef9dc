/**
 * The journal and the server around it: what each entry holds, writing it to a file,
 * requests the server does not serve, problems, the provider, and where it listens.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import {
  ScriptedModelProblems,
  ServerStartFailed,
  startScriptedModel,
  type ScriptedModel,
} from "@jest-m3/scripted-model";
import { callAndOutput, outputItems, preamble, requestBody, userMessage } from "./codex-requests";
import { postResponses } from "./sse-client";

let model: ScriptedModel | undefined;
let dir: string | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const script = {
  rules: [
    {
      name: "quote",
      when: { user: "quote" },
      steps: [
        { call: "shipping:shipping_quote", args: { weight_kg: 2 } },
        { reply: "{{result.amount}}" },
      ],
    },
  ],
};

test("every request is journaled with method, path, parsed body, conversation, decision and status", async () => {
  model = await startScriptedModel(script);
  const input = [...preamble(), userMessage("quote please")];
  const first = await postResponses(model.provider.baseUrl, requestBody({ input }), {
    headers: { authorization: "Bearer sk-secret-value" },
  });
  input.push(
    ...callAndOutput(outputItems(first.frames)[0] as never, { amount: 9, currency: "USD" }),
  );
  await postResponses(model.provider.baseUrl, requestBody({ input }));

  const [one, two] = model.journal.entries;
  expect(one).toMatchObject({
    index: 1,
    method: "POST",
    path: "/v1/responses",
    status: 200,
    delayMs: 0,
    body: { model: "scripted", stream: true, input: expect.any(Array) },
    conversation: {
      turn: 1,
      user: "quote please",
      turnResults: [],
      offeredTools: ["shipping:shipping_quote"],
      toolSearch: false,
    },
    decision: {
      kind: "call",
      rule: 'rule "quote"',
      step: 1,
      calls: [expect.objectContaining({ arguments: { weight_kg: 2 } })],
    },
  });
  expect(one?.headers.authorization).toBe("Bearer <redacted>");
  expect(JSON.stringify(model.journal.toJSON())).not.toContain("sk-secret-value");
  expect(new Date(String(one?.at)).getTime()).toBeGreaterThan(0);
  expect(two?.decision).toEqual({ kind: "reply", rule: 'rule "quote"', step: 2, text: "9" });
  // The tool result that came back is in the second request's body.
  const body = two?.body as { input: { type: string; output?: string }[] };
  expect(body.input.find((i) => i.type === "function_call_output")?.output).toContain(
    '{"amount":9',
  );
  expect(model.journal.decisions).toEqual(model.journal.entries.map((e) => e.decision));
});

test("the journal is written to a file as JSON", async () => {
  model = await startScriptedModel(script);
  await postResponses(model.provider.baseUrl, requestBody({ input: [userMessage("quote")] }));
  dir = mkdtempSync(join(tmpdir(), "m3-journal-"));
  const file = join(dir, "nested", "journal.json");
  model.journal.writeTo(file);
  const written = JSON.parse(readFileSync(file, "utf8"));
  expect(written).toEqual(JSON.parse(JSON.stringify(model.journal.toJSON())));
  expect(written.entries).toHaveLength(1);
  expect(written.entries[0].decision.kind).toBe("call");
});

test("requests the server does not serve are answered, journaled and reported as problems", async () => {
  model = await startScriptedModel(script);
  const models = await fetch(`${model.provider.baseUrl}/nothing`);
  expect(models.status).toBe(404);
  expect(((await models.json()) as { error: { message: string } }).error.message).toMatch(
    /^The scripted model does not serve GET \/v1\/nothing; it serves POST <origin>\/v1\/responses, /,
  );
  const bad = await postResponses(model.provider.baseUrl, "{not json");
  expect(bad.status).toBe(400);
  expect(bad.json.error.message).toContain("not a JSON object");
  expect(model.journal.entries[1]?.body).toBe("{not json");

  expect(model.journal.problems).toEqual([
    expect.stringMatching(
      /^request #1 \(GET \/v1\/nothing\): The scripted model does not serve GET/,
    ),
    "request #2 (POST /v1/responses): The request body is not a JSON object; a Responses API request is expected.",
  ]);
  let thrown: unknown;
  try {
    model.journal.assertNoProblems();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ScriptedModelProblems);
  expect((thrown as ScriptedModelProblems).name).toBe("ScriptedModelProblems");
  expect((thrown as ScriptedModelProblems).problems).toHaveLength(2);
  expect((thrown as Error).message).toMatch(
    /^The scripted model saw 2 problem\(s\):\n {2}- request #1/,
  );
});

test("assertNoProblems passes when every request went as scripted", async () => {
  model = await startScriptedModel(script);
  await postResponses(model.provider.baseUrl, requestBody({ input: [userMessage("quote")] }));
  expect(() => model?.journal.assertNoProblems()).not.toThrow();
});

test("the provider is ready for a harness and the server listens on 127.0.0.1 only", async () => {
  model = await startScriptedModel(script, { name: "offline" });
  expect(model.provider).toEqual({
    name: "offline",
    baseUrl: `http://127.0.0.1:${model.port}/v1`,
    wireApi: "responses",
  });
  expect(model.url).toBe(`http://127.0.0.1:${model.port}`);
  await expect(
    fetch(`http://[::1]:${model.port}/v1/responses`, { method: "POST" }),
  ).rejects.toThrow();
  const external = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && !a.internal && a.family === "IPv4");
  if (external !== undefined) {
    await expect(
      fetch(`http://${external.address}:${model.port}/v1/responses`, { method: "POST" }),
    ).rejects.toThrow();
  }
});

test("a chosen port is used; a taken one fails with ServerStartFailed; close() is idempotent", async () => {
  model = await startScriptedModel(script);
  const port = model.port;
  await model.close();
  await model.close();
  model = await startScriptedModel(script, { port });
  expect(model.port).toBe(port);
  const error = await startScriptedModel(script, { port }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ServerStartFailed);
  expect((error as Error).message).toBe(
    `The scripted model could not listen on 127.0.0.1:${port}: the port is already in use. ` +
      "Pass another `port`, or omit it to take any free port.",
  );
});

test("await using closes the server", async () => {
  let port: number;
  {
    await using m = await startScriptedModel(script);
    port = m.port;
  }
  await expect(
    fetch(`http://127.0.0.1:${port}/v1/responses`, { method: "POST" }),
  ).rejects.toThrow();
});
