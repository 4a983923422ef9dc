/**
 * The adapter kit's agent given by command: its options read (a missing command, an unknown
 * placeholder, a credential in `env` refused in the reader's error), its command found on
 * the real file system (a runnable path, a file that is not runnable, a name on PATH, a
 * name that is not there) and run, and its placeholders filled for one launch.
 */
import { execFileSync } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  fillAgentCommand,
  findAgentCommand,
  InvalidHarnessOptions,
  optionReader,
  readAgentCommand,
} from "@jest-m3/core/adapter-kit";

const NAMES = ["command", "args", "env"];
const PLACEHOLDERS = ["model", "provider.baseUrl"];
const EXAMPLE = 'options: { command: "./bin/my-agent", args: ["--serve"] }';

function read(options: Record<string, unknown>) {
  return readAgentCommand(optionReader("my-agent", options, NAMES), options, PLACEHOLDERS, EXAMPLE);
}

test("readAgentCommand takes the command, its arguments and variables", () => {
  expect(
    read({
      command: "my-agent",
      args: ["--model", "{{model}}"],
      env: { MY_URL: "{{ provider.baseUrl }}" },
    }),
  ).toEqual({
    command: "my-agent",
    args: ["--model", "{{model}}"],
    env: { MY_URL: "{{ provider.baseUrl }}" },
  });
  expect(read({ command: "my-agent" })).toEqual({ command: "my-agent", args: [], env: {} });
});

test("readAgentCommand refuses a missing command, an unknown placeholder and a credential", () => {
  expect(() => read({})).toThrow(
    'my-agent harness option "command" must be the agent\'s executable (a path or a name on PATH), got undefined. Example: options: { command: "./bin/my-agent", args: ["--serve"] }.',
  );
  expect(() => read({ command: " " })).toThrow(InvalidHarnessOptions);
  expect(() => read({ command: "my-agent", args: ["{{home}}"] })).toThrow(
    /option "args\[0\]" uses the unknown placeholder \{\{home\}\}; the placeholders are \{\{model\}\}, \{\{provider.baseUrl\}\}/,
  );
  expect(() => read({ command: "my-agent", env: { MY_DIR: "{{home}}" } })).toThrow(
    /option "env.MY_DIR" uses the unknown placeholder/,
  );
  expect(() => read({ command: "my-agent", env: { MY_API_KEY: "sk-1" } })).toThrow(
    /"env.MY_API_KEY" looks like a credential/,
  );
  expect(() => read({ command: "my-agent", args: "--serve" })).toThrow(
    /"args" must be an array of strings, got "--serve"/,
  );
});

describe("findAgentCommand on the file system", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "m3-agent-command-"));
    await writeFile(join(dir, "my-agent"), '#!/bin/sh\necho answered "$@"\n');
    await chmod(join(dir, "my-agent"), 0o755);
    await writeFile(join(dir, "notes.txt"), "not a program\n");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("a path is found when it is a runnable file, and runs", () => {
    const found = findAgentCommand(join(dir, "my-agent"));
    expect(found).toMatchObject({ found: true, path: join(dir, "my-agent"), source: "options" });
    if (!found.found || process.platform === "win32") return;
    expect(execFileSync(found.command, [...found.prefix, "--serve"], { encoding: "utf8" })).toBe(
      "answered --serve\n",
    );
  });

  test("a path that is no runnable file, and a name not on PATH, say why", () => {
    if (process.platform !== "win32") {
      expect(findAgentCommand(join(dir, "notes.txt"))).toEqual({
        found: false,
        reason: `options.command ${JSON.stringify(join(dir, "notes.txt"))} is not an executable file.`,
      });
    }
    expect(findAgentCommand("m3-no-such-agent", "options.command", dir)).toEqual({
      found: false,
      reason: 'options.command "m3-no-such-agent" is not on PATH.',
    });
    expect(findAgentCommand("./missing", "agent.command")).toMatchObject({
      found: false,
      reason: expect.stringMatching(/^agent\.command ".*missing" is not an executable file\.$/),
    });
  });

  test("a name is looked up on PATH", () => {
    if (process.platform === "win32") return;
    expect(findAgentCommand("my-agent", "options.command", dir)).toMatchObject({
      found: true,
      path: join(dir, "my-agent"),
    });
  });
});

test("fillAgentCommand fills the placeholders; one without a value is the caller's error", () => {
  const command = { args: ["--model", "{{model}}"], env: { MY_URL: "{{provider.baseUrl}}/v1" } };
  expect(
    fillAgentCommand(
      command,
      { model: "scripted-1", "provider.baseUrl": "http://127.0.0.1:9" },
      () => {
        throw new Error("not called");
      },
    ),
  ).toEqual({ args: ["--model", "scripted-1"], env: { MY_URL: "http://127.0.0.1:9/v1" } });
  expect(() =>
    fillAgentCommand(
      command,
      { model: "scripted-1" },
      (name, option) => new Error(`${option}: {{${name}}}`),
    ),
  ).toThrow("env.MY_URL: {{provider.baseUrl}}");
});
