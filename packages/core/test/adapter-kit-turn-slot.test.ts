/**
 * The adapter kit's turn slot over a real agent process (a Node script that answers a turn
 * on stdin, or ignores it): one turn at a time, the abort → interrupt → grace path, a dead
 * agent, health and close; and a SlotSession over it, whose process id, interrupt and health
 * are the slot's and the process's own. The script's own replies are the ground truth of
 * what was sent.
 */
import {
  AgentExited,
  AgentProcess,
  finishedTurn,
  UsageTally,
  JsonLines,
  SlotSession,
  TurnSlot,
  type SlotTurn,
} from "@jest-m3/core/adapter-kit";
import type { AdapterTurn, AdapterTurnOutcome, AdapterTurnRequest } from "@jest-m3/core/harness";
import { nodeAgent } from "@jest-m3/test-support";

const AGENT = String.raw`
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "turn" && message.text === "reply") console.log(JSON.stringify({ type: "done", text: "hello" }));
  if (message.type === "interrupt" && message.confirm) console.log(JSON.stringify({ type: "interrupted" }));
  if (message.type === "die") { process.stderr.write("dying now\n"); process.exit(9); }
});
process.stdin.on("end", () => process.exit(0));
`;

/** A turn that ends at the agent's `done` or `interrupted` line. */
class LineTurn implements SlotTurn {
  readonly done: Promise<AdapterTurn>;
  private finished = false;
  private resolve: (turn: AdapterTurn) => void = () => undefined;
  constructor() {
    this.done = new Promise((resolve) => (this.resolve = resolve));
  }
  get isFinished(): boolean {
    return this.finished;
  }
  finish(outcome: AdapterTurnOutcome, error: string | null, text: string | null = null): void {
    if (this.finished) return;
    this.finished = true;
    this.resolve({
      outcome,
      response: text === null ? null : { text },
      error,
      toolCalls: [],
      events: [],
    });
  }
}

interface Agent {
  readonly process: AgentProcess;
  readonly lines: JsonLines;
  readonly slot: TurnSlot<LineTurn>;
  readonly interrupts: LineTurn[];
}

const started: AgentProcess[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((agent) => agent.close(200)));
});

function agent(confirm: boolean, graceMs = 300): Agent {
  const child = nodeAgent("turn agent", AGENT);
  const process_ = new AgentProcess(child);
  started.push(process_);
  const interrupts: LineTurn[] = [];
  const slot: TurnSlot<LineTurn> = new TurnSlot<LineTurn>({
    names: { agent: "Turn Agent", process: "turn-agent serve", stderr: "turn-agent" },
    agent: process_,
    stderrTail: () => process_.stderrTail(),
    graceMs,
    interrupt: (turn) => {
      interrupts.push(turn);
      lines.write({ type: "interrupt", confirm });
    },
  });
  const lines = new JsonLines(child, (message) => {
    if (message.type === "done") slot.current?.finish("completed", null, String(message.text));
    if (message.type === "interrupted") slot.current?.finish("interrupted", "the agent confirmed");
  });
  return { process: process_, lines, slot, interrupts };
}

function request(text: string, signal: AbortSignal): AdapterTurnRequest {
  return { text, turnId: "turn-1", timeoutMs: 5000, signal };
}

function signal(): AbortSignal {
  return new AbortController().signal;
}

test("a turn runs to the agent's answer; a second one meanwhile throws", async () => {
  const { slot, lines } = agent(true);
  const silent = slot.run(request("wait", signal()), new LineTurn(), () => {
    lines.write({ type: "turn", text: "wait" });
  });
  expect(slot.busy).toBe(true);
  await expect(
    slot.run(request("again", signal()), new LineTurn(), () => undefined),
  ).rejects.toThrow("A Turn Agent turn is still running on this session; one turn at a time.");
  await slot.interrupt();
  expect((await silent).outcome).toBe("interrupted");
  const turn = await slot.run(request("reply", signal()), new LineTurn(), () => {
    lines.write({ type: "turn", text: "reply" });
  });
  expect(turn).toMatchObject({ outcome: "completed", response: { text: "hello" } });
});

test("an abort interrupts once; the agent's confirmation ends the turn", async () => {
  const { slot, lines, interrupts } = agent(true);
  const abort = new AbortController();
  const running = slot.run(request("wait", abort.signal), new LineTurn(), () => {
    lines.write({ type: "turn", text: "wait" });
  });
  abort.abort();
  await slot.interrupt();
  expect(await running).toMatchObject({ outcome: "interrupted", error: "the agent confirmed" });
  expect(interrupts).toHaveLength(1);
});

test("an interrupt the agent does not confirm ends the turn after the grace period", async () => {
  const { slot, lines } = agent(false, 150);
  const began = Date.now();
  const running = slot.run(request("wait", signal()), new LineTurn(), () => {
    lines.write({ type: "turn", text: "wait" });
  });
  void slot.interrupt();
  expect(await running).toMatchObject({
    outcome: "interrupted",
    error: "The turn was interrupted; Turn Agent did not confirm within 150 ms.",
  });
  expect(Date.now() - began).toBeGreaterThanOrEqual(140);
});

test("an aborted request is never sent; a start that throws fails the turn in the agent's words", async () => {
  const { slot } = agent(true);
  const abort = new AbortController();
  abort.abort();
  let sent = false;
  const aborted = await slot.run(request("x", abort.signal), new LineTurn(), () => {
    sent = true;
  });
  expect(aborted).toMatchObject({
    outcome: "interrupted",
    error: "The turn was aborted before it was sent.",
  });
  expect(sent).toBe(false);
  const refused = await slot.run(request("x", signal()), new LineTurn(), () => {
    throw new Error("no thread");
  });
  expect(refused).toMatchObject({
    outcome: "failed",
    error: "Turn Agent refused the turn: no thread",
  });
});

test("a start that throws the agent's exit fails the turn as that exit, with the error's tail", async () => {
  const names = { agent: "Turn Agent", process: "turn-agent serve", stderr: "turn-agent" };
  const running = { exitDescription: undefined, onExit: () => () => undefined };
  const exit = new AgentExited("turn-agent serve", "while waiting for turn", "code 9", "gone");
  const run = (tail: string) =>
    new TurnSlot<LineTurn>({ names, agent: running, stderrTail: () => tail, interrupt: () => {} })
      .run(request("x", signal()), new LineTurn(), () => Promise.reject(exit))
      .then((turn) => turn.error);
  expect(await run("earlier")).toBe(
    "turn-agent serve exited (code 9) during the turn\n--- turn-agent stderr (last lines) ---\ngone",
  );
  // A shared agent's (its session's tail is ""): none of the error's stderr.
  expect(await run("")).toBe("turn-agent serve exited (code 9) during the turn");
});

test("the agent's death fails the running turn with its stderr tail; later turns fail at once", async () => {
  const { slot, lines, process: agentProcess } = agent(true);
  const running = slot.run(request("wait", signal()), new LineTurn(), () => {
    lines.write({ type: "die" });
  });
  expect(await running).toMatchObject({
    outcome: "failed",
    error:
      "turn-agent serve exited (code 9) during the turn\n--- turn-agent stderr (last lines) ---\ndying now",
  });
  expect(agentProcess.exitDescription).toBe("code 9");
  expect(slot.health()).toEqual({ alive: false, exit: "code 9", stderrTail: "dying now" });
  const after = await slot.run(request("x", signal()), new LineTurn(), () => undefined);
  expect(after.error).toBe(
    "turn-agent serve is not running (code 9)\n--- turn-agent stderr (last lines) ---\ndying now",
  );
});

test("close ends a running turn interrupted, says it was mid-turn, and health says closed", async () => {
  const { slot, lines } = agent(true);
  expect(slot.health()).toEqual({ alive: true });
  const running = slot.run(request("wait", signal()), new LineTurn(), () => {
    lines.write({ type: "turn", text: "wait" });
  });
  expect(slot.close()).toBe(true);
  expect(await running).toMatchObject({
    outcome: "interrupted",
    error: "The session closed during the turn.",
  });
  expect(slot.health()).toEqual({ alive: false, exit: "closed" });
  expect(slot.close()).toBe(false);
  const after = await slot.run(request("x", signal()), new LineTurn(), () => undefined);
  expect(after).toMatchObject({ outcome: "failed", error: "the session is closed" });
});

test("shutdown runs the session's close work once, with whether a turn was running", async () => {
  const { slot, lines } = agent(true);
  const running = slot.run(request("wait", signal()), new LineTurn(), () => {
    lines.write({ type: "turn", text: "wait" });
  });
  const seen: boolean[] = [];
  const work = async (midTurn: boolean): Promise<void> => void seen.push(midTurn);
  const first = slot.shutdown(work);
  expect(slot.shutdown(work)).toBe(first);
  await first;
  expect(seen).toEqual([true]);
  expect((await running).outcome).toBe("interrupted");
});

test("a turn the slot ended on an unconfirmed interrupt leaves the agent not reusable; a confirmed one does not", async () => {
  for (const confirm of [false, true]) {
    const { slot, lines } = agent(confirm, 100);
    const running = slot.run(request("wait", signal()), new LineTurn(), () => {
      lines.write({ type: "turn", text: "wait" });
    });
    void slot.interrupt();
    expect((await running).outcome).toBe("interrupted");
    // No turn runs now; an agent that never confirmed may still be in that one.
    const seen: boolean[] = [];
    await slot.shutdown(async (midTurn) => void seen.push(midTurn));
    expect({ confirm, notReusable: seen[0] }).toEqual({ confirm, notReusable: !confirm });
  }
});

test("finishedTurn: the reply, the calls, a copy of the events and the agent's own usage", () => {
  const events: unknown[] = [{ n: 1 }];
  const usage = new UsageTally();
  usage.add({ inputTokens: 100, outputTokens: 7 });
  const turn = finishedTurn("completed", null, { text: "hi", toolCalls: [], events, usage });
  events.push({ n: 2 });
  expect(turn).toEqual({
    outcome: "completed",
    response: { text: "hi" },
    error: null,
    toolCalls: [],
    events: [{ n: 1 }],
    usage: expect.objectContaining({ inputTokens: 100, outputTokens: 7 }),
  });
  const silent = finishedTurn("failed", "boom", {
    text: null,
    toolCalls: [],
    events: [],
    usage: new UsageTally(),
  });
  expect(silent.response).toBeNull();
  expect(silent.error).toBe("boom");
  expect(silent.usage).toBeUndefined();
});

/** A session as an adapter writes one: its slot made in the constructor, send and close its own. */
class LineSession extends SlotSession<LineTurn> {
  protected readonly slot: TurnSlot<LineTurn>;
  readonly interrupts: LineTurn[] = [];
  private readonly lines: JsonLines;

  constructor(protected readonly client: AgentProcess) {
    super();
    this.slot = new TurnSlot<LineTurn>({
      names: { agent: "Line Agent" },
      agent: client,
      stderrTail: () => client.stderrTail(),
      interrupt: (turn) => {
        this.interrupts.push(turn);
        this.lines.write({ type: "interrupt", confirm: true });
      },
    });
    this.lines = new JsonLines(client.process, (message) => {
      if (message.type === "interrupted") this.slot.current?.finish("interrupted", "confirmed");
    });
  }

  send(request: AdapterTurnRequest): Promise<AdapterTurn> {
    return this.slot.run(request, new LineTurn(), () => undefined);
  }

  die(): void {
    this.lines.write({ type: "die" });
  }

  close(): Promise<void> {
    return this.slot.shutdown(() => this.client.close(200));
  }
}

const sessions: LineSession[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((made) => made.close()));
});

function lineSession(): LineSession {
  const made = new LineSession(new AgentProcess(nodeAgent("line agent", AGENT)));
  sessions.push(made);
  return made;
}

test("SlotSession: the pid is the agent process's; interrupt goes through the slot once, health is alive", async () => {
  const line = lineSession();
  expect(line.pid).toBe(line["client"].process.pid);
  expect(typeof line.pid).toBe("number");
  expect(line.health()).toEqual({ alive: true });
  await line.interrupt(); // nothing running: nothing asked
  expect(line.interrupts).toHaveLength(0);
  const running = line.send(request("wait", signal()));
  await Promise.all([line.interrupt(), line.interrupt()]);
  expect(await running).toMatchObject({ outcome: "interrupted", error: "confirmed" });
  expect(line.interrupts).toHaveLength(1);
});

test("SlotSession: health says how the session ended, the agent's exit, or closed", async () => {
  const dying = lineSession();
  const exited = new Promise<void>((resolve) => dying["client"].onExit(() => resolve()));
  dying.die();
  await exited;
  expect(dying.health()).toMatchObject({ alive: false, exit: expect.stringContaining("9") });
  const closing = lineSession();
  await closing.close();
  expect(closing.health()).toMatchObject({ alive: false });
});
