/**
 * The adapter kit's line-delimited JSON-RPC client against a real child process: a small
 * Node script that answers, fails, hangs, notifies, asks the client, writes colored
 * stderr and exits. Its own stdout/stdin are the ground truth (it echoes what it got).
 */
import {
  AgentExited,
  AgentProtocolError,
  AgentTimeout,
  JsonRpcClient,
  ManagedProcess,
  isProcessAlive,
  within,
} from "@jest-m3/core/adapter-kit";

const AGENT = String.raw`
const readline = require("node:readline");
const out = (message) => process.stdout.write(JSON.stringify(message) + "\n");
let asked = 0;
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.method === undefined) {
    out({ method: "answered", params: { id: message.id, result: message.result, error: message.error } });
    return;
  }
  switch (message.method) {
    case "echo": out({ id: message.id, result: { got: message.params, jsonrpc: message.jsonrpc ?? null } }); break;
    case "fail": out({ id: message.id, error: { code: -32000, message: "no such thread", data: { why: "test" } } }); break;
    case "hang": break;
    case "notify-me": out({ method: "note", params: { n: 1 } }); out({ id: message.id, result: null }); break;
    case "ask": out({ id: "srv-" + ++asked, method: "approve", params: message.params }); out({ id: message.id, result: null }); break;
    case "garbage": process.stdout.write("not json\n" + "x".repeat(5000) + "\n"); out({ id: message.id, result: "after" }); break;
    case "die": process.stderr.write("\u001b[31mfatal: out of cheese\u001b[0m\n"); process.exit(3); break;
  }
});
process.stdin.on("end", () => process.exit(0));
`;

function start(
  options: Partial<ConstructorParameters<typeof JsonRpcClient>[1]> = {},
): JsonRpcClient {
  const child = new ManagedProcess({
    label: "test agent",
    command: process.execPath,
    args: ["-e", AGENT],
    env: { PATH: process.env.PATH ?? "" },
  });
  return new JsonRpcClient(child, { agent: "test agent", ...options });
}

const clients: JsonRpcClient[] = [];
function client(options?: Partial<ConstructorParameters<typeof JsonRpcClient>[1]>): JsonRpcClient {
  const made = start(options);
  clients.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(clients.splice(0).map((each) => each.close(200)));
});

test("a request resolves with the agent's result; the jsonrpc field is the option's", async () => {
  expect(await client().request("echo", { a: 1 })).toEqual({ got: { a: 1 }, jsonrpc: "2.0" });
  expect(await client({ jsonrpcField: false }).request("echo", [2])).toEqual({
    got: [2],
    jsonrpc: null,
  });
});

test("an error answer rejects with AgentProtocolError: one code, the agent's words", async () => {
  const error = await client()
    .request("fail")
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(AgentProtocolError);
  expect(error).toMatchObject({
    code: "M3_AGENT_PROTOCOL_ERROR",
    method: "fail",
    rpcCode: -32000,
    data: { why: "test" },
    message: "test agent answered fail with error -32000: no such thread",
  });
});

test("no answer in time: AgentTimeout, retryable; an abort rejects with the signal's reason", async () => {
  const agent = client();
  const timeout = await agent
    .request("hang", undefined, { timeoutMs: 50 })
    .catch((e: unknown) => e);
  expect(timeout).toBeInstanceOf(AgentTimeout);
  expect(timeout).toMatchObject({ code: "M3_AGENT_TIMEOUT", retryable: true, timeoutMs: 50 });
  expect((timeout as Error).message).toContain("test agent did not answer hang within 50 ms");
  const abort = new AbortController();
  const waiting = agent.request("hang", undefined, { signal: abort.signal });
  abort.abort(new Error("torn down"));
  await expect(waiting).rejects.toThrow("torn down");
});

test("notifications reach listeners; the agent's requests reach the handler of their scope", async () => {
  const agent = client({
    scopeOf: (params) => (params as { thread?: string } | null)?.thread,
    scopeName: "thread",
  });
  const notes: unknown[] = [];
  agent.onNotification((note) => notes.push(note));
  await agent.request("notify-me");
  expect(notes[0]).toEqual({ method: "note", params: { n: 1 } });

  agent.handleRequests((request) => ({ scoped: request.params }), "t1");
  const stop = agent.handleRequests(() => {
    throw new Error("refused by the default handler");
  });
  const answered = new Promise<unknown[]>((resolve) => {
    const got: unknown[] = [];
    agent.onNotification((note) => {
      if (note.method === "answered" && got.push(note.params) === 3) resolve(got);
    });
  });
  await agent.request("ask", { thread: "t1" });
  await agent.request("ask", { thread: "t2" });
  stop();
  await agent.request("ask", { thread: "t3" });
  expect(await answered).toEqual([
    { id: "srv-1", result: { scoped: { thread: "t1" } } },
    { id: "srv-2", error: { code: -32603, message: "refused by the default handler" } },
    {
      id: "srv-3",
      error: { code: -32601, message: "jest-m3 does not handle approve for thread t3" },
    },
  ]);
});

test("a scoped listener hears only the notifications of its scope", async () => {
  const agent = client({ scopeOf: (params) => (params as { n?: number } | null)?.n?.toString() });
  const heard: Record<string, unknown[]> = { all: [], one: [], two: [] };
  agent.onNotification((note) => heard.all!.push(note.method));
  agent.onNotification((note) => heard.one!.push(note.method), "1");
  agent.onNotification((note) => heard.two!.push(note.method), "2");
  await agent.request("notify-me");
  expect(heard).toEqual({ all: ["note"], one: ["note"], two: [] });
});

test("lines that are not JSON objects, or too long, are problems, and the stream goes on", async () => {
  const agent = client({ maxLineLength: 1000 });
  expect(await agent.request("garbage")).toBe("after");
  expect(agent.problems[0]).toBe("not json");
  expect(agent.problems[1]).toMatch(/^\(a line longer than 1000 characters, dropped\) x{500}$/);
});

test("the agent's exit rejects every waiting request with its exit and stderr tail (no colors)", async () => {
  const agent = client();
  const waiting = agent.request("hang");
  void agent.request("die").catch(() => undefined);
  const error = await waiting.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(AgentExited);
  expect(error).toMatchObject({ code: "M3_HARNESS_DIED", exit: "code 3" });
  expect((error as AgentExited).stderrTail).toBe("fatal: out of cheese");
  expect((error as Error).message).toBe(
    "test agent exited (code 3) while waiting for hang.\n--- test agent stderr (last lines) ---\nfatal: out of cheese",
  );
  await expect(agent.request("echo")).rejects.toThrow(
    "test agent exited (code 3) before echo could be sent.",
  );
  expect(agent.agent.exitDescription).toBe("code 3");
  const late: string[] = [];
  agent.agent.onExit((exit) => late.push(exit));
  expect(late).toEqual(["code 3"]);
});

test("close(grace) ends stdin, and the agent is gone; the error factories are the adapter's", async () => {
  class MyExited extends AgentExited {}
  const agent = client({ exited: (what, exit, tail) => new MyExited("mine", what, exit, tail) });
  const pid = agent.agent.pid!;
  const waiting = agent.request("hang");
  await agent.close(500);
  expect(isProcessAlive(pid)).toBe(false);
  expect(agent.agent.exitDescription).toBe("code 0");
  await expect(waiting).rejects.toBeInstanceOf(MyExited);
});

test("a command that cannot start says so as its exit", async () => {
  const child = new ManagedProcess({
    label: "missing",
    command: "/nonexistent/agent-binary",
    args: [],
    env: {},
  });
  const agent = new JsonRpcClient(child, { agent: "missing agent" });
  const error = await agent.request("echo").catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(AgentExited);
  expect((error as AgentExited).exit).toMatch(/^could not be started: .*ENOENT/);
});

test("within: the promise when it settles first, else what late() gives or throws", async () => {
  const slow = new Promise<string>((resolve) => setTimeout(resolve, 300, "slow"));
  await expect(within(Promise.resolve("quick"), 50, () => "late")).resolves.toBe("quick");
  await expect(within(slow, 20, () => "late")).resolves.toBe("late");
  const thrown = within(slow, 20, () => {
    throw new Error("/clear took longer than 20 ms");
  });
  await expect(thrown).rejects.toThrow("/clear took longer than 20 ms");
  await expect(within(Promise.reject(new Error("gone")), 50, () => "late")).rejects.toThrow("gone");
});
