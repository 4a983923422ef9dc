// A two-turn Pi session through the kit vs a bare RPC driver of the same binary: the same
// Node, flags, bridge extension, scripted model (the Responses API), shipping MCP server and
// prompts. The bare driver writes models.json and settings.json into fresh temporary
// folders, spawns `pi --mode rpc` with the bridge pointed straight at the server, asks
// `get_state`, sends one `prompt` per turn and reads until `agent_settled`, then closes
// stdin. The kit adds readiness (cached after the warm-up), the wire capture (a stdio relay
// in front of the server), the allow-list, the trace, correlation and the per-turn results.
// Rounds rotate the order of the sides; the figures are medians.
//
// Run on its own: `npx tsx bench/pi-session.ts` (after `npm run build`).
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnvironment } from "@jest-m3/core/adapter-kit";
import { MCPTestKit, type StdioServer } from "@jest-m3/core";
import piHarness, {
  BRIDGE_EXTENSION,
  findNode,
  modelsJson,
  piArgs,
  piPackageFacts,
  resolvePiExecutable,
  resolvePiOptions,
  settingsJson,
} from "@jest-m3/harness-pi";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { gone, memory } from "./process-tree";
import { median, printComparison, sessionVerdict } from "./report";

const SHIPPING = join(__dirname, "..", "examples", "shipping");
const SCRIPT = join(SHIPPING, "model-script.json");
const SERVER: StdioServer = {
  name: "shipping",
  command: process.execPath,
  args: [join(SHIPPING, "shipping-server.mjs")],
  cwd: SHIPPING,
};
const MODEL = "scripted-model";
const PROMPTS = [
  "Call shipping_quote once for weight_kg 2 in zone local.",
  "Call shipping_quote once for weight_kg 3 in zone regional.",
] as const;
const EXPECTED = ["9 USD", "15.5"] as const;
const MB = 1024 * 1024;

type Side = "bare" | "kit";
interface Round {
  readonly open: number;
  readonly turn1: number;
  readonly turn2: number;
  readonly close: number;
  readonly wall: number;
  /** Peak RSS (VmHWM) of the Pi process, bytes. */
  readonly pi: number;
  /** Summed peak RSS of everything below Pi, bytes. */
  readonly below: number;
}

function check(side: Side, turn: number, reply: string | null | undefined, calls: number): void {
  if (!reply?.includes(EXPECTED[turn - 1]!)) {
    throw new Error(`${side}: turn ${turn} replied ${JSON.stringify(reply)}`);
  }
  if (calls !== 1) throw new Error(`${side}: turn ${turn} made ${calls} successful quote calls`);
}

/** The bare driver: JSON lines over stdio, nothing else. */
class BarePi {
  private readonly waiters: {
    test: (m: Record<string, unknown>) => boolean;
    done: (m: Record<string, unknown>) => void;
  }[] = [];
  private readonly records: Record<string, unknown>[] = [];
  private buffer = "";
  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    private readonly root: string,
  ) {
    child.stdout.on("data", (chunk: Buffer) => {
      this.buffer += String(chunk);
      for (let end = this.buffer.indexOf("\n"); end >= 0; end = this.buffer.indexOf("\n")) {
        const record = JSON.parse(this.buffer.slice(0, end)) as Record<string, unknown>;
        this.buffer = this.buffer.slice(end + 1);
        this.records.push(record);
        for (const waiter of [...this.waiters]) {
          if (waiter.test(record)) {
            this.waiters.splice(this.waiters.indexOf(waiter), 1);
            waiter.done(record);
          }
        }
      }
    });
    child.stderr.resume();
  }

  static async open(node: string, pi: string, model: ScriptedModel): Promise<BarePi> {
    const root = await mkdtemp(join(tmpdir(), "m3-bench-pi-"));
    const agentDir = join(root, "agent");
    await mkdir(agentDir);
    const provider = model.providerFor("responses");
    const options = resolvePiOptions({});
    await writeFile(join(agentDir, "models.json"), JSON.stringify(modelsJson(provider, MODEL)));
    await writeFile(join(agentDir, "settings.json"), JSON.stringify(settingsJson(options)));
    const bridge = {
      servers: [{ kind: "stdio", ...SERVER, env: {} }],
      allow: { shipping: null },
      statusFile: join(root, "status.json"),
      toolTimeoutMs: 60_000,
      startupTimeoutMs: 30_000,
    };
    const child = spawn(
      node,
      [pi, ...piArgs({ model: MODEL, provider }, options, BRIDGE_EXTENSION)],
      {
        cwd: root,
        env: childEnvironment({
          HOME: root,
          TMPDIR: root,
          PI_CODING_AGENT_DIR: agentDir,
          PI_OFFLINE: "1",
          PI_TELEMETRY: "0",
          PI_SKIP_VERSION_CHECK: "1",
          M3_PI_NO_KEY: "bench-no-key",
          M3_PI_BRIDGE: JSON.stringify(bridge),
        }),
      },
    );
    const bare = new BarePi(child, root);
    await bare.command({ type: "get_state" });
    return bare;
  }

  private next(test: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    return new Promise((done) => this.waiters.push({ test, done }));
  }

  async command(command: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = `bench-${this.records.length}-${Math.random()}`;
    const answer = this.next((m) => m.type === "response" && m.id === id);
    this.child.stdin.write(JSON.stringify({ ...command, id }) + "\n");
    return answer;
  }

  /** One turn: the reply and the number of successful tool results. */
  async send(text: string): Promise<{ reply: string; calls: number }> {
    const from = this.records.length;
    const settled = this.next((m) => m.type === "agent_settled");
    await this.command({ type: "prompt", message: text });
    await settled;
    const turn = this.records.slice(from);
    const calls = turn.filter((m) => m.type === "tool_execution_end" && m.isError === false).length;
    const end = turn.filter((m) => m.type === "agent_end").at(-1) as
      { messages: { role: string; content: { type: string; text?: string }[] }[] } | undefined;
    const last = end?.messages.filter((message) => message.role === "assistant").at(-1);
    const reply = (last?.content ?? []).map((part) => part.text ?? "").join("");
    return { reply, calls };
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.on("exit", resolve));
    this.child.stdin.end();
    await exited;
    await rm(this.root, { recursive: true, force: true });
  }
}

async function bareRound(model: ScriptedModel, node: string, pi: string): Promise<Round> {
  const t0 = performance.now();
  const bare = await BarePi.open(node, pi, model);
  const t1 = performance.now();
  const first = await bare.send(PROMPTS[0]);
  const t2 = performance.now();
  const second = await bare.send(PROMPTS[1]);
  const t3 = performance.now();
  const { pids, agent: piRss, below } = memory(bare.child.pid!);
  const t4 = performance.now();
  await bare.close();
  const t5 = performance.now();
  await gone(pids, "bare");
  check("bare", 1, first.reply, first.calls);
  check("bare", 2, second.reply, second.calls);
  return {
    open: t1 - t0,
    turn1: t2 - t1,
    turn2: t3 - t2,
    close: t5 - t4,
    wall: t3 - t0 + t5 - t4,
    pi: piRss,
    below,
  };
}

async function kitRound(model: ScriptedModel): Promise<Round> {
  const t0 = performance.now();
  const kit = new MCPTestKit({ env: {}, harnesses: [piHarness] });
  try {
    const [agent] = kit.agents([
      { harness: "pi", models: [MODEL], provider: model.providerFor("responses") },
    ]);
    const session = agent!.session({
      server: SERVER,
      tools: ["shipping:shipping_quote"],
      timeout: 60_000,
    });
    await session.open();
    const t1 = performance.now();
    const first = await session.send(PROMPTS[0]);
    const t2 = performance.now();
    const second = await session.send(PROMPTS[1]);
    const t3 = performance.now();
    const piPid = kit.processes.find((child) => child.label === "pi")?.pid;
    if (piPid === undefined) throw new Error("kit: no pi process");
    const { pids, agent: piRss, below } = memory(piPid);
    const t4 = performance.now();
    await session.close();
    await kit.close();
    const t5 = performance.now();
    await gone(pids, "kit");
    [first, second].forEach((turn, index) => {
      const quotes = turn.toolCalls.filter(
        (call) => call.status === "success" && call.evidence === "both",
      );
      check("kit", index + 1, turn.response?.text, quotes.length);
    });
    return {
      open: t1 - t0,
      turn1: t2 - t1,
      turn2: t3 - t2,
      close: t5 - t4,
      wall: t3 - t0 + t5 - t4,
      pi: piRss,
      below,
    };
  } finally {
    await kit.close();
  }
}

async function round(side: Side, node: string, pi: string): Promise<Round> {
  const model = await startScriptedModel(SCRIPT);
  try {
    return side === "kit" ? await kitRound(model) : await bareRound(model, node, pi);
  } finally {
    await model.close();
  }
}

/**
 * The benchmark: a warm-up round of the kit (its readiness; the page cache of the binary for
 * both sides), then `rounds` rounds in rotating order.
 */
export async function benchPiSession({ rounds = 3 } = {}): Promise<void> {
  const pi = resolvePiExecutable({}, {});
  if (!pi.found) throw new Error(pi.reason);
  const node = await findNode(piPackageFacts(pi.path).node, undefined, {});
  if (!node.found) throw new Error(node.reason);
  const sides: readonly Side[] = ["bare", "kit"];
  await round("kit", node.path, pi.path); // warm-up: readiness, page cache
  const results: Record<Side, Round[]> = { bare: [], kit: [] };
  for (let index = 0; index < rounds; index++) {
    const order = index % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) results[side].push(await round(side, node.path, pi.path));
  }
  const med = (side: Side, pick: (round: Round) => number) => median(results[side].map(pick));
  const labels: Record<Side, string> = { bare: "bare RPC driver", kit: "kit (agent.session)" };
  const row = (side: Side, pick: (round: Round) => number, unit: string) => ({
    label: labels[side],
    value: med(side, pick),
    unit,
  });
  printComparison(
    `pi session: one two-turn Pi session (scripted model, shipping server), ms, median of ${rounds} rounds, lower is better`,
    row("bare", (r) => r.wall, "ms"),
    [row("kit", (r) => r.wall, "ms")],
  );
  for (const phase of ["open", "turn1", "turn2", "close"] as const) {
    const cells = sides.map(
      (side) =>
        `${side} ${med(side, (r) => r[phase])
          .toFixed(1)
          .padStart(7)}`,
    );
    console.log(`    ${phase.padEnd(6)} ${cells.join("  ")} ms`);
  }
  printComparison(
    "pi session: Pi peak RSS (VmHWM read before close), MB, median",
    row("bare", (r) => r.pi / MB, "MB"),
    [row("kit", (r) => r.pi / MB, "MB")],
  );
  printComparison(
    "pi session: Pi and everything below it (MCP server; kit: relay + server), summed peak RSS, MB, median",
    row("bare", (r) => (r.pi + r.below) / MB, "MB"),
    [row("kit", (r) => (r.pi + r.below) / MB, "MB")],
  );
  for (const side of sides) {
    console.log(
      `  ${side.padEnd(4)} every round (ms): ${results[side].map((r) => r.wall.toFixed(0)).join(" ")}`,
    );
  }
  sessionVerdict(
    "pi session",
    { bare: med("bare", (r) => r.wall), kit: med("kit", (r) => r.wall) },
    { bare: med("bare", (r) => r.pi + r.below) / MB, kit: med("kit", (r) => r.pi + r.below) / MB },
  );
  console.log(
    `  every round: Node ${node.version.text} for Pi; replies checked (9 USD, then 15.5), one successful quote per turn, every process gone by pid`,
  );
}

if (require.main === module) {
  benchPiSession().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
