/**
 * Bad input fails at start with errors that name the rule, the step or the file, and say what
 * to do; JSON scripts load and run like TypeScript ones.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  InvalidCassette,
  InvalidScript,
  MissingApiKey,
  loadScript,
  startRecordingModel,
  startReplayModel,
  startScriptedModel,
  validateScript,
  type Script,
} from "@jest-m3/scripted-model";
import { outputItems, requestBody, userMessage } from "./codex-requests";
import { postResponses } from "./sse-client";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "m3-bad-input-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string): string {
  const file = join(dir, name);
  writeFileSync(file, content);
  return file;
}

async function startError(script: unknown): Promise<InvalidScript> {
  const error = await startScriptedModel(script as Script).then(
    async (model) => {
      await model.close();
      throw new Error("the script was accepted");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidScript);
  expect((error as Error).name).toBe("InvalidScript");
  return error as InvalidScript;
}

test("an unknown step kind names the rule, the step and the kinds there are", async () => {
  const error = await startError({
    rules: [{ name: "quote", steps: [{ call: "shipping:shipping_quote" }, { repl: "typo" }] }],
  });
  expect(error.message).toBe(
    'Invalid scripted-model script: rule "quote" step 2: has unknown step kind "repl"; ' +
      "use one of call, parallel, reply, fail, http, cut, hang, delay",
  );
  expect(error.location).toBe('rule "quote" step 2');
});

test.each(["shipping_quote", "shipping:", ":shipping_quote", "a:b:c", "ship ping:quote"])(
  "a malformed tool reference %j names the rule",
  async (ref) => {
    const error = await startError({
      rules: [{ steps: [{ reply: "x" }] }, { steps: [{ parallel: [{ call: ref }] }] }],
    });
    expect(error.message).toBe(
      `Invalid scripted-model script: rule #2 step 1 parallel call 1: tool reference "${ref}" is ` +
        "malformed; write it as \"server:tool\" with the MCP server's name and the tool's name, " +
        'e.g. "shipping:shipping_quote"',
    );
  },
);

test.each([
  [{}, 'script: "rules" must be an array of rules, got nothing'],
  [
    { rules: [], extra: 1 },
    'script: unknown field "extra" in a script; allowed: name, rules, fallback',
  ],
  [{ rules: [{ steps: [] }] }, 'rule #1: "steps" must be a non-empty array of steps, got an array'],
  [
    { rules: [{ steps: [{ reply: "x" }], toolNotOffered: "yes" }] },
    'rule #1: "toolNotOffered" must be "problem" (the default: the test fails) or "expected"',
  ],
  [
    { rules: [], toolNotOffered: true },
    'script: "toolNotOffered" must be "problem" (the default: the test fails) or "expected" (a test of an allow-list calls a tool the agent is not offered on purpose), got boolean true',
  ],
  [
    { rules: [{ steps: ["hello"] }] },
    "rule #1 step 1: must be an object with one of call, parallel",
  ],
  [
    { rules: [{ steps: [{ reply: "a", fail: "b" }] }] },
    "rule #1 step 1: has several step kinds (reply, fail)",
  ],
  [
    { rules: [{ steps: [{ call: "a:b", arg: {} }] }] },
    'unknown field "arg" in a call step; allowed: call, args',
  ],
  [
    { rules: [{ steps: [{ reply: "a" }, { reply: "b" }] }] },
    "rule #1 step 2: is never reached: step 1 (reply) ends",
  ],
  [
    { rules: [{ steps: [{ delay: 5 }] }] },
    "rule #1 step 1: a delay must be followed by the step it delays",
  ],
  [
    { rules: [{ steps: [{ http: 200 }] }] },
    'rule #1 step 1: "http" must be an error status 400…599, got number 200',
  ],
  [
    { rules: [{ steps: [{ cut: "yes" }] }] },
    'write a cut step as { cut: true }, got the string "yes"',
  ],
  [
    { rules: [{ when: { usr: "x" }, steps: [{ reply: "a" }] }] },
    'rule #1 when: unknown field "usr" in a when',
  ],
  [
    { rules: [{ when: { turn: 0 }, steps: [{ reply: "a" }] }] },
    "rule #1 when.turn: must be a turn number",
  ],
  [
    { rules: [{ when: { user: { regex: "(" } }, steps: [{ reply: "a" }] }] },
    "rule #1 when.user: is not a valid regular expression",
  ],
  [
    {
      rules: [
        { name: "a", steps: [{ reply: "x" }] },
        { name: "a", steps: [{ reply: "y" }] },
      ],
    },
    'rule "a": another rule has the same name',
  ],
  [
    { rules: [{ steps: [{ reply: "{{reslt.amount}}" }] }] },
    'rule #1 step 1 reply: placeholder {{reslt.amount}} starts with unknown name "reslt"',
  ],
  [
    { rules: [{ steps: [{ call: "a:b", args: { n: "{{match.1 | int}}" } }] }] },
    'rule #1 step 1 args.n: placeholder {{match.1 | int}} uses unknown filter "int"',
  ],
  [{ rules: [], fallback: [{ bogus: true }] }, 'fallback step 1: has unknown step kind "bogus"'],
])("script %j is rejected: %s", async (script, message) => {
  const error = await startError(script);
  expect(error.message).toContain(message);
  expect(() => validateScript(script as unknown as Script)).toThrow(InvalidScript);
});

test("a JSON script file loads, with regexes and templates, and runs like a TypeScript script", async () => {
  const file = write(
    "script.json",
    JSON.stringify({
      rules: [
        {
          name: "quote",
          when: { user: { regex: "quote (\\d+) kg", flags: "i" } },
          steps: [
            {
              call: "shipping:shipping_quote",
              args: { weight_kg: "{{match.1 | number}}", zone: "local" },
            },
            { reply: "It costs {{result.amount}}." },
          ],
        },
      ],
    }),
  );
  expect(loadScript(file).rules).toHaveLength(1);
  const model = await startScriptedModel(file);
  try {
    const reply = await postResponses(
      model.provider.baseUrl,
      requestBody({ input: [userMessage("Quote 3 kg")] }),
    );
    expect(JSON.parse(String(outputItems(reply.frames)[0]?.arguments))).toEqual({
      weight_kg: 3,
      zone: "local",
    });
  } finally {
    await model.close();
  }
});

test("a JSON script file that is broken names the file (and the rule)", async () => {
  const notJson = write("broken.json", "{ rules: [");
  expect(() => loadScript(notJson)).toThrow(
    `Invalid scripted-model script: script file ${notJson}: is not valid JSON`,
  );
  const missing = join(dir, "missing.json");
  await expect(startScriptedModel(missing)).rejects.toThrow(
    `script file ${missing}: cannot be read`,
  );
  const badRule = write(
    "bad-rule.json",
    JSON.stringify({ rules: [{ name: "r", steps: [{ call: "nocolon" }] }] }),
  );
  expect(() => loadScript(badRule)).toThrow(
    `Invalid scripted-model script: script file ${badRule}: rule "r" step 1: tool reference "nocolon" is malformed`,
  );
});

test("a cassette that is not a cassette names the file", async () => {
  const cases: [string, string][] = [
    [
      write("plain.json", JSON.stringify({ hello: "world" })),
      'is not a cassette: "format" is missing, expected "jest-m3.cassette"',
    ],
    [write("text.json", "not json at all"), "is not a cassette: it is not valid JSON"],
    [write("list.json", "[]"), "is not a cassette: it is not a JSON object"],
    [
      write(
        "no-interactions.json",
        JSON.stringify({ format: "jest-m3.cassette", version: 1, volatile: [] }),
      ),
      'is not a cassette: "interactions" is not an array',
    ],
    [
      write(
        "v9.json",
        JSON.stringify({ format: "jest-m3.cassette", version: 9, interactions: [] }),
      ),
      "has version 9; this package reads version 1",
    ],
    [join(dir, "absent.json"), "does not exist. Record it first with startRecordingModel"],
  ];
  for (const [file, problem] of cases) {
    const error = await startReplayModel({ cassette: file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidCassette);
    expect((error as InvalidCassette).name).toBe("InvalidCassette");
    expect((error as InvalidCassette).file).toBe(file);
    expect((error as Error).message).toContain(`Cassette ${file}: ${problem}`);
  }
});

test("record mode with an unset key variable names the variable, never a value", async () => {
  const variable = "M3_TEST_KEY_THAT_IS_NOT_SET";
  delete process.env[variable];
  const error = await startRecordingModel({
    upstream: { baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: variable },
    cassette: join(dir, "c.json"),
  }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(MissingApiKey);
  expect((error as MissingApiKey).variable).toBe(variable);
  expect((error as Error).message).toContain(`environment variable ${variable}, which is not set`);
});
