/**
 * The adapter kit's SlotSession over a real agent process (a Node script that confirms an
 * interrupt, or exits when told): its process id, its interrupt and its health are the
 * slot's and the process's own.
 */
import {
  AgentProcess,
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
  if (message.type === "interrupt") console.log(JSON.stringify({ type: "interrupted" }));
  if (message.type === "die") process.exit(7);
});
process.stdin.on("end", () => process.exit(0));
`;

/** A turn that ends when finished. */
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
  finish(outcome: AdapterTurnOutcome, error: string | null): void {
    if (this.finished) return;
    this.finished = true;
    this.resolve({ outcome, response: null, error, toolCalls: [], events: [] });
  }
}

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
        this.lines.write({ type: "interrupt" });
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
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});

function session(): LineSession {
  const made = new LineSession(new AgentProcess(nodeAgent("line agent", AGENT)));
  sessions.push(made);
  return made;
}

function request(): AdapterTurnRequest {
  return { text: "wait", turnId: "turn-1", timeoutMs: 5000, signal: new AbortController().signal };
}

test("the pid is the agent process's; interrupt goes through the slot once, health is alive", async () => {
  const line = session();
  expect(line.pid).toBe(line["client"].process.pid);
  expect(typeof line.pid).toBe("number");
  expect(line.health()).toEqual({ alive: true });
  await line.interrupt(); // nothing running: nothing asked
  expect(line.interrupts).toHaveLength(0);
  const running = line.send(request());
  await Promise.all([line.interrupt(), line.interrupt()]);
  expect(await running).toMatchObject({ outcome: "interrupted", error: "confirmed" });
  expect(line.interrupts).toHaveLength(1);
});

test("health says how the session ended: the agent's exit, or closed", async () => {
  const dying = session();
  const exited = new Promise<void>((resolve) => dying["client"].onExit(() => resolve()));
  dying.die();
  await exited;
  expect(dying.health()).toMatchObject({ alive: false, exit: expect.stringContaining("7") });
  const closing = session();
  await closing.close();
  expect(closing.health()).toMatchObject({ alive: false });
});
