// A two-turn Claude Code session through the kit vs a bare stream-json driver of the same
// binary: the same flags, the same scripted model (Anthropic Messages), the same shipping
// MCP server, the same prompts. The bare driver spawns `claude --print` in stream-json mode
// in fresh temporary homes, gives it the server over stdin (`mcp_set_servers`), waits for
// it to connect, writes one user message per turn and reads until `result`, then closes
// stdin. The kit adds readiness (cached after the warm-up), the wire capture (a stdio relay
// in front of the server), the allow-list (deny rules, permission answers), the trace,
// correlation and the per-turn results. Rounds rotate the order of the sides; the figures
// are medians.
//
// Run on its own: `npx tsx bench/claude-code-session.ts` (after `npm run build`).
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { MCPTestKit, type StdioServer } from "@jest-m3/core";
import { childEnvironment } from "@jest-m3/core/adapter-kit";
import claudeCodeHarness, { resolveClaudeExecutable } from "@jest-m3/harness-claude-code";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { gone, memory, stat } from "./process-tree";
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
  /** Peak RSS (VmHWM) of the claude process, bytes. */
  readonly claude: number;
  /** Summed peak RSS of everything below claude, bytes. */
  readonly below: number;
}

function check(side: Side, turn: number, reply: string | null | undefined, calls: number): void {
  if (!reply?.includes(EXPECTED[turn - 1]!)) {
    throw new Error(`${side}: turn ${turn} replied ${JSON.stringify(reply)}`);
  }
  if (calls !== 1) throw new Error(`${side}: turn ${turn} made ${calls} successful quote calls`);
}

/** The bare driver: stream-json over stdin, nothing else. */
class BareClaude {
  private readonly waiters: {
    test: (m: Record<string, unknown>) => boolean;
    done: (m: Record<string, unknown>) => void;
  }[] = [];
  private readonly messages: Record<string, unknown>[] = [];
  private nextId = 1;
  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    private readonly root: string,
  ) {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const message = JSON.parse(line) as Record<string, unknown>;
      this.messages.push(message);
      for (const waiter of [...this.waiters]) {
        if (waiter.test(message)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.done(message);
        }
      }
    });
    child.stderr.resume();
  }

  static async open(claude: string, model: ScriptedModel): Promise<BareClaude> {
    const root = await mkdtemp(join(tmpdir(), "m3-bench-claude-"));
    const child = spawn(
      claude,
      [
        "--print",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
        "--strict-mcp-config",
        "--setting-sources",
        "",
        "--tools",
        "",
        "--allowedTools",
        "mcp__shipping__shipping_quote",
        "--model",
        MODEL,
        "--no-session-persistence",
      ],
      {
        cwd: root,
        env: childEnvironment({
          HOME: root,
          CLAUDE_CONFIG_DIR: join(root, ".claude"),
          ANTHROPIC_BASE_URL: model.providerFor("anthropic-messages").baseUrl,
          ANTHROPIC_API_KEY: "bench-no-key",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          CLAUDE_CODE_MAX_RETRIES: "0",
        }),
      },
    );
    const bare = new BareClaude(child, root);
    await bare.control({
      subtype: "mcp_set_servers",
      servers: { shipping: { type: "stdio", command: SERVER.command, args: SERVER.args } },
    });
    for (;;) {
      const status = (await bare.control({ subtype: "mcp_status" })) as {
        mcpServers?: { status: string }[];
      };
      if (status.mcpServers?.every((server) => server.status !== "pending")) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return bare;
  }

  private next(test: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    return new Promise((done) => this.waiters.push({ test, done }));
  }

  async control(request: Record<string, unknown>): Promise<unknown> {
    const id = `bench-${this.nextId++}`;
    const answer = this.next(
      (m) =>
        m.type === "control_response" && (m.response as { request_id?: string }).request_id === id,
    );
    this.child.stdin.write(
      JSON.stringify({ type: "control_request", request_id: id, request }) + "\n",
    );
    return ((await answer).response as { response?: unknown }).response;
  }

  /** One turn: the reply and the number of successful tool results. */
  async send(text: string): Promise<{ reply: string; calls: number }> {
    const from = this.messages.length;
    const result = this.next((m) => m.type === "result");
    this.child.stdin.write(
      JSON.stringify({
        type: "user",
        message: { role: "user", content: text },
        parent_tool_use_id: null,
        session_id: "",
      }) + "\n",
    );
    const end = await result;
    const calls = this.messages
      .slice(from)
      .filter((m) => m.type === "user")
      .flatMap((m) => (m.message as { content: { type: string; is_error?: boolean }[] }).content)
      .filter((block) => block.type === "tool_result" && !block.is_error).length;
    return { reply: String(end.result), calls };
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.on("exit", resolve));
    this.child.stdin.end();
    await exited;
    await rm(this.root, { recursive: true, force: true });
  }
}

async function bareRound(model: ScriptedModel, claude: string): Promise<Round> {
  const t0 = performance.now();
  const bare = await BareClaude.open(claude, model);
  const t1 = performance.now();
  const first = await bare.send(PROMPTS[0]);
  const t2 = performance.now();
  const second = await bare.send(PROMPTS[1]);
  const t3 = performance.now();
  const { pids, agent: claudeRss, below } = memory(bare.child.pid!);
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
    claude: claudeRss,
    below,
  };
}

async function kitRound(model: ScriptedModel): Promise<Round> {
  const t0 = performance.now();
  const kit = new MCPTestKit({ env: {}, harnesses: [claudeCodeHarness] });
  try {
    const [agent] = kit.agents([
      {
        harness: "claude-code",
        models: [MODEL],
        provider: model.providerFor("anthropic-messages"),
      },
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
    const claudePid = kit.processes.find((child) =>
      stat(child.pid)?.comm.startsWith("claude"),
    )?.pid;
    if (claudePid === undefined) throw new Error("kit: no claude process");
    const { pids, agent: claudeRss, below } = memory(claudePid);
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
      claude: claudeRss,
      below,
    };
  } finally {
    await kit.close();
  }
}

async function round(side: Side, claude: string): Promise<Round> {
  const model = await startScriptedModel(SCRIPT);
  try {
    return side === "kit" ? await kitRound(model) : await bareRound(model, claude);
  } finally {
    await model.close();
  }
}

/**
 * The benchmark: a warm-up round of the kit (its readiness; the page cache of the binary for
 * both sides), then `rounds` rounds in rotating order.
 */
export async function benchClaudeCodeSession({ rounds = 3 } = {}): Promise<void> {
  const lookup = resolveClaudeExecutable({}, {});
  if (!lookup.found) throw new Error(lookup.reason);
  const sides: readonly Side[] = ["bare", "kit"];
  await round("kit", lookup.path); // warm-up: readiness, page cache
  const results: Record<Side, Round[]> = { bare: [], kit: [] };
  for (let index = 0; index < rounds; index++) {
    const order = index % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) results[side].push(await round(side, lookup.path));
  }
  const med = (side: Side, pick: (round: Round) => number) => median(results[side].map(pick));
  const labels: Record<Side, string> = {
    bare: "bare stream-json driver",
    kit: "kit (agent.session)",
  };
  const row = (side: Side, pick: (round: Round) => number, unit: string) => ({
    label: labels[side],
    value: med(side, pick),
    unit,
  });
  printComparison(
    `claude-code session: one two-turn Claude Code session (scripted model, shipping server), ms, median of ${rounds} rounds, lower is better`,
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
    "claude-code session: claude peak RSS (VmHWM read before close), MB, median",
    row("bare", (r) => r.claude / MB, "MB"),
    [row("kit", (r) => r.claude / MB, "MB")],
  );
  printComparison(
    "claude-code session: claude and everything below it (MCP server; kit: relay + server), summed peak RSS, MB, median",
    row("bare", (r) => (r.claude + r.below) / MB, "MB"),
    [row("kit", (r) => (r.claude + r.below) / MB, "MB")],
  );
  for (const side of sides) {
    console.log(
      `  ${side.padEnd(4)} every round (ms): ${results[side].map((r) => r.wall.toFixed(0)).join(" ")}`,
    );
  }
  sessionVerdict(
    "claude-code session",
    { bare: med("bare", (r) => r.wall), kit: med("kit", (r) => r.wall) },
    {
      bare: med("bare", (r) => r.claude + r.below) / MB,
      kit: med("kit", (r) => r.claude + r.below) / MB,
    },
  );
  console.log(
    "  every round: replies checked (9 USD, then 15.5), one successful quote per turn, every process gone by pid",
  );
}

if (require.main === module) {
  benchClaudeCodeSession().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}

/** One round of one side (for bench/memory.ts, which samples memory around it). */
export { round as claudeCodeRound, bareRound as claudeCodeBareRound };
