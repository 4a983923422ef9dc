/**
 * The adapter kit's waits on an agent's own stream, with real child processes: the polled
 * changes of a startup wait (an agent that tells its state only when asked) and one
 * exchange answered on the message stream (the answer taken, the send's failure, the
 * agent's exit and the deadline, each ending the subscription and the timer).
 */
import {
  AgentProcess,
  errorMessage,
  JsonLinesClient,
  messageExchange,
  polledChanges,
  startupWait,
  type JsonObject,
} from "@jest-m3/core/adapter-kit";
import { HarnessStartError } from "@jest-m3/core/harness";
import { nodeAgent } from "@jest-m3/test-support";

const names = { agent: "My Agent", process: "my-agent serve", stderr: "my-agent" };
const clients: JsonLinesClient<JsonObject>[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close(200)));
});

/**
 * A real agent on JSON lines: `status` answers with the number of times asked (ready from
 * the third), `clear` prints a noise line then `{"type":"result"}`, `quit` exits with 3.
 */
const SCRIPT = `
let asked = 0;
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  const say = (value) => process.stdout.write(JSON.stringify(value) + "\\n");
  if (message.type === "status") say({ type: "answer", id: message.id, asked: ++asked });
  if (message.type === "clear") { say({ type: "noise" }); say({ type: "result", cleared: true }); }
  if (message.type === "quit") process.exit(3);
});`;

function client(): JsonLinesClient<JsonObject> {
  const made = new JsonLinesClient<JsonObject>(nodeAgent("my-agent serve", SCRIPT), {
    answerOf: (message) =>
      message.type === "answer" && typeof message.id === "string"
        ? { id: message.id, answer: message }
        : undefined,
    exited: (what, exit) => new Error(`exited ${what} (${exit})`),
    timeout: (what, ms) => new Error(`${what} took ${ms} ms`),
  });
  clients.push(made);
  return made;
}

function status(agent: JsonLinesClient<JsonObject>): Promise<JsonObject> {
  return agent.request("status", (id) => ({ type: "status", id }), { timeoutMs: 2000 });
}

test("polledChanges asks until the check holds, then stops asking", async () => {
  const agent = client();
  let asked = 0;
  let problem: unknown;
  const ask = async () => {
    asked = Number((await status(agent)).asked);
  };
  await startupWait({
    harness: "my-agent",
    names,
    agent: agent.agent,
    signal: new AbortController().signal,
    timeoutMs: 5000,
    changes: polledChanges(ask, 20, (error) => (problem = error)),
    check: () => (problem !== undefined ? errorMessage(problem) : asked >= 3),
    waiting: () => "still asking",
  });
  expect(asked).toBe(3);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(Number((await status(agent)).asked)).toBe(4); // nothing asked after the wait ended
});

test("polledChanges: a failed ask goes to the check, which ends the wait", async () => {
  const agent = new AgentProcess(nodeAgent("my-agent serve", "process.stdin.resume();"));
  try {
    let problem: unknown;
    const wait = startupWait({
      harness: "my-agent",
      names,
      agent,
      signal: new AbortController().signal,
      timeoutMs: 5000,
      changes: polledChanges(
        () => Promise.reject(new Error("status is not supported")),
        20,
        (error) => (problem = error),
      ),
      check: () => (problem !== undefined ? errorMessage(problem) : false),
      waiting: () => "still asking",
    });
    await expect(wait).rejects.toThrow(HarnessStartError);
    await expect(wait).rejects.toThrow(/status is not supported/);
  } finally {
    await agent.close(200);
  }
});

test("messageExchange takes the first accepted message of the stream", async () => {
  const agent = client();
  const seen: unknown[] = [];
  const result = await messageExchange<JsonObject, JsonObject>({
    messages: (listener) => agent.onMessage(listener),
    agent: agent.agent,
    send: () => agent.send({ type: "clear" }),
    take: (message) => {
      seen.push(message.type);
      return message.type === "result" ? message : undefined;
    },
    timeoutMs: 2000,
    late: () => new Error("late"),
    exited: (exit) => new Error(`exited (${exit})`),
  });
  expect(result).toEqual({ type: "result", cleared: true });
  expect(seen).toEqual(["noise", "result"]);
});

test("messageExchange: the send's throw, the agent's exit and the deadline reject it", async () => {
  const agent = client();
  const exchange = {
    messages: (listener: (message: JsonObject) => void) => agent.onMessage(listener),
    agent: agent.agent,
    take: (message: JsonObject) => (message.type === "result" ? message : undefined),
    timeoutMs: 300,
    late: () => new Error("no result within 300 ms"),
    exited: (exit: string) => new Error(`my-agent exited (${exit})`),
  };
  const refused = messageExchange({
    ...exchange,
    send: () => {
      throw new Error("stdin is closed");
    },
  });
  await expect(refused).rejects.toThrow("stdin is closed");
  await expect(messageExchange({ ...exchange, send: () => undefined })).rejects.toThrow(
    "no result within 300 ms",
  );
  const quit = messageExchange({ ...exchange, send: () => agent.send({ type: "quit" }) });
  await expect(quit).rejects.toThrow("my-agent exited (code 3)");
});
