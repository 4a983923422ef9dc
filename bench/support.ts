/**
 * What the session benchmarks share: the shipping example they all drive (server, prompts,
 * scripts, the replies to expect), the two-turn round timed by phase on either side, the
 * kit's side of a round, a bare driver's JSON-lines child, the rounds in alternating order,
 * and the kit-vs-bare report (bench/claude-code-session.ts, bench/pi-session.ts,
 * bench/acp-session.ts), and the warm benchmarks' seed session and summary
 * (bench/warm.ts, bench/warm-acp.ts, bench/warm-claude-code.ts).
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { MCPTestKit, type AgentSelectionInput, type StdioServer } from "@jest-m3/core";
import type { HarnessDefinition } from "@jest-m3/core/harness";
import { startScriptedModel, type Script, type ScriptedModel } from "@jest-m3/scripted-model";
import { seedRule } from "@jest-m3/test-support";
import { gone, memory } from "./process-tree";
import { median, printComparison, sessionVerdict } from "./report";

/** The shipping example (examples/shipping). */
export const SHIPPING = join(__dirname, "..", "examples", "shipping");
/** Its model script: a quote per prompt, and a reply with the amount. */
export const SHIPPING_SCRIPT = join(SHIPPING, "model-script.json");
/** Its MCP server, as a session is given it. */
export const SHIPPING_SERVER: StdioServer = {
  name: "shipping",
  command: process.execPath,
  args: [join(SHIPPING, "shipping-server.mjs")],
  cwd: SHIPPING,
};
/** The two turns of every seed session. */
export const PROMPTS = [
  "Call shipping_quote once for weight_kg 2 in zone local.",
  "Call shipping_quote once for weight_kg 3 in zone regional.",
] as const;
/** 5 + 2 kg × 2 and 5 + 3 kg × 3.5: the replies must carry the amounts the server returned. */
export const SHIPPING_EXPECTED = ["9 USD", "15.5"] as const;
// The ACP agents pass the model only a tool result's text ("Quote calculated"), so the reply
// carries what the model asked for, not the amount.
/** The script of the ACP benchmarks: a quote per prompt, a reply naming the weight. */
export const QUOTE_SCRIPT: Script = {
  rules: [seedRule("The {{match.2}} quote for {{match.1}} kg is ready.")],
};
/** What the replies of {@link QUOTE_SCRIPT} carry. */
export const QUOTE_EXPECTED = ["2 kg", "3 kg"] as const;
export const MB = 1024 * 1024;

/** The shipping server writing each call it serves to `log` (one JSON line a call). */
export function loggingServer(log: string): StdioServer {
  return { ...SHIPPING_SERVER, env: { SHIPPING_CALL_LOG: log } };
}

/** How many calls the server's own log at `file` holds (0 when it has none yet). */
export function callsLogged(file: string): number {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}

/** Throws unless the server's own log at `file` holds two calls more than `before`. */
export function checkLog(file: string, side: string, before = 0): void {
  const calls = callsLogged(file) - before;
  if (calls !== 2) throw new Error(`${side}: the server logged ${calls} calls, not 2`);
}

/** Throws unless turn `turn`'s reply carries `expected[turn - 1]` and it made one call. */
export function checkTurn(
  what: string,
  turn: number,
  reply: string | null | undefined,
  calls: number,
  expected: readonly string[],
): void {
  if (!reply?.includes(expected[turn - 1]!)) {
    throw new Error(`${what}: turn ${turn} replied ${JSON.stringify(reply)}`);
  }
  if (calls !== 1) throw new Error(`${what}: turn ${turn} made ${calls} successful quote calls`);
}

/** The successful calls of a kit turn seen both on the wire and reported by the agent. */
export function quotesOf(turn: {
  readonly toolCalls: readonly { readonly status: string; readonly evidence?: string }[];
}): number {
  return turn.toolCalls.filter((call) => call.status === "success" && call.evidence === "both")
    .length;
}

/** One two-turn session of a kit-vs-bare benchmark, timed by phase (ms) and its peak memory. */
export interface SessionRound {
  readonly open: number;
  readonly turn1: number;
  readonly turn2: number;
  readonly close: number;
  readonly wall: number;
  /** Peak RSS (VmHWM) of the agent process, bytes. */
  readonly agent: number;
  /** Summed peak RSS of everything below the agent (bare: the server; kit: relay + server). */
  readonly below: number;
}

/** How a round drives its session: open it, a turn, the agent's pid, close it. */
interface TwoTurnSteps<S, T> {
  open(): Promise<S>;
  send(session: S, prompt: string): Promise<T>;
  pid(session: S): number;
  /** `pids`: the agent and everything below it, read before close. */
  close(session: S, pids: readonly number[]): Promise<void>;
}

/**
 * Opens a session, sends the two prompts, reads the agent's tree memory, closes: each phase
 * timed (the reading not counted). The caller checks the turns.
 */
async function twoTurns<S, T>(
  steps: TwoTurnSteps<S, T>,
): Promise<{ round: SessionRound; turns: readonly [T, T]; pids: number[] }> {
  const t0 = performance.now();
  const session = await steps.open();
  const t1 = performance.now();
  const first = await steps.send(session, PROMPTS[0]);
  const t2 = performance.now();
  const second = await steps.send(session, PROMPTS[1]);
  const t3 = performance.now();
  const used = memory(steps.pid(session));
  const t4 = performance.now();
  await steps.close(session, used.pids);
  const t5 = performance.now();
  const round = {
    open: t1 - t0,
    turn1: t2 - t1,
    turn2: t3 - t2,
    close: t5 - t4,
    wall: t3 - t0 + t5 - t4,
    agent: used.agent,
    below: used.below,
  };
  return { round, turns: [first, second], pids: used.pids };
}

/** Close is timed until every process of the session is gone, or only to close() returning. */
export type CloseTimed = "until-gone" | "to-close";

/** A bare driver's session: its agent process, one turn, close. */
export interface BareSession {
  readonly child: { readonly pid?: number | undefined };
  send(text: string): Promise<{ reply: string; calls: number }>;
  close(): Promise<void>;
}

/** One round of a bare driver: two turns, each reply checked, every process gone by pid. */
async function bareTwoTurns(
  what: string,
  open: () => Promise<BareSession>,
  expected: readonly string[],
  closeTimed: CloseTimed,
): Promise<SessionRound> {
  const { round, turns, pids } = await twoTurns({
    open,
    send: (bare, prompt) => bare.send(prompt),
    pid: (bare) => bare.child.pid!,
    close: async (bare, pids) => {
      await bare.close();
      // Closed means nothing of the session is left, as the kit's close() guarantees.
      if (closeTimed === "until-gone") await gone(pids, what);
    },
  });
  if (closeTimed === "to-close") await gone(pids, what);
  turns.forEach((turn, index) => checkTurn(what, index + 1, turn.reply, turn.calls, expected));
  return round;
}

/** The kit's side of a round: one agent of one harness. */
export interface KitAgent {
  readonly harness: HarnessDefinition;
  readonly agent: AgentSelectionInput;
  readonly timeout: number;
  /** The agent's process among the kit's, and its name for the error when there is none. */
  readonly pid: (kit: MCPTestKit) => number | undefined;
  readonly process: string;
}

/** {@link KitAgent} with what its round checks. */
interface KitSide extends KitAgent {
  /** Names the round in errors ("kit", "gemini kit"). */
  readonly what: string;
  readonly expected: readonly string[];
  readonly closeTimed: CloseTimed;
}

/**
 * One round through the kit: a kit, the agent's session on the shipping server, two turns,
 * session and kit closed, every process gone by pid, one quote per turn on both sides.
 */
async function kitTwoTurns(side: KitSide): Promise<SessionRound> {
  let kit: MCPTestKit | undefined;
  try {
    const { round, turns, pids } = await twoTurns({
      open: async () => {
        kit = new MCPTestKit({ env: {}, harnesses: [side.harness] });
        const [selection] = kit.agents([side.agent]);
        const session = selection!.session({
          server: SHIPPING_SERVER,
          tools: ["shipping:shipping_quote"],
          timeout: side.timeout,
        });
        await session.open();
        return { kit, session };
      },
      send: ({ session }, prompt) => session.send(prompt),
      pid: ({ kit }) => {
        const pid = side.pid(kit);
        if (pid === undefined) throw new Error(`${side.what}: no ${side.process} process`);
        return pid;
      },
      close: async ({ kit, session }, pids) => {
        await session.close();
        await kit.close();
        if (side.closeTimed === "until-gone") await gone(pids, side.what);
      },
    });
    if (side.closeTimed === "to-close") await gone(pids, side.what);
    turns.forEach((turn, index) => {
      checkTurn(side.what, index + 1, turn.response?.text, quotesOf(turn), side.expected);
    });
    return round;
  } finally {
    await kit?.close();
  }
}

/**
 * A bare driver's agent child that speaks JSON lines: every record it writes kept in
 * order, waits for the next one that passes a test, and a close that ends stdin, waits
 * for the exit and removes the driver's temporary folder.
 */
export class JsonLinesChild {
  private readonly waiters: {
    test: (m: Record<string, unknown>) => boolean;
    done: (m: Record<string, unknown>) => void;
  }[] = [];
  /** Every record the agent wrote, in order. */
  protected readonly records: Record<string, unknown>[] = [];

  protected constructor(
    readonly child: ChildProcessWithoutNullStreams,
    private readonly root: string,
  ) {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      this.records.push(record);
      for (const waiter of [...this.waiters]) {
        if (waiter.test(record)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.done(record);
        }
      }
    });
    child.stderr.resume();
  }

  /** The next record that passes `test`. */
  protected next(test: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    return new Promise((done) => this.waiters.push({ test, done }));
  }

  /** Writes one JSON line to the agent's stdin. */
  protected write(message: Record<string, unknown>): void {
    this.child.stdin.write(JSON.stringify(message) + "\n");
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.on("exit", resolve));
    this.child.stdin.end();
    await exited;
    await rm(this.root, { recursive: true, force: true });
  }
}

export type Side = "bare" | "kit";
const SIDES: readonly Side[] = ["bare", "kit"];

/** One agent of a kit-vs-bare session benchmark: both sides on the same scripted model. */
export interface KitVsBare {
  /** Starts the rounds' names in errors: "" ("bare", "kit") or "gemini " ("gemini kit"). */
  readonly prefix: string;
  readonly script: string | Script;
  readonly expected: readonly string[];
  readonly closeTimed: CloseTimed;
  /** Opens the bare driver's session on `model`. */
  bare(model: ScriptedModel): Promise<BareSession>;
  /** The kit's agent on `model`. */
  kit(model: ScriptedModel): KitAgent;
}

/** One round of the bare driver on `model`. */
export function bareRound(spec: KitVsBare, model: ScriptedModel): Promise<SessionRound> {
  const what = `${spec.prefix}bare`;
  return bareTwoTurns(what, () => spec.bare(model), spec.expected, spec.closeTimed);
}

/** One round of `side` with its own scripted model. */
export async function sessionRound(spec: KitVsBare, side: Side): Promise<SessionRound> {
  const model = await startScriptedModel(spec.script);
  try {
    if (side === "bare") return await bareRound(spec, model);
    const { expected, closeTimed } = spec;
    return await kitTwoTurns({
      ...spec.kit(model),
      what: `${spec.prefix}kit`,
      expected,
      closeTimed,
    });
  } finally {
    await model.close();
  }
}

/**
 * The benchmark of one agent: one warm-up round of the kit (its readiness; the page cache
 * of the binary for both sides), not counted, then `rounds` rounds of each side, the order
 * alternating (bare first in even rounds) so noise hits both alike; then the report.
 */
export async function benchKitVsBare(
  spec: KitVsBare,
  names: SessionReportNames,
  rounds: number,
): Promise<void> {
  await sessionRound(spec, "kit"); // warm-up: readiness, page cache
  const results: Record<Side, SessionRound[]> = { bare: [], kit: [] };
  for (let index = 0; index < rounds; index++) {
    const order = index % 2 === 0 ? SIDES : [...SIDES].reverse();
    for (const side of order) results[side].push(await sessionRound(spec, side));
  }
  reportSessions(names, rounds, results);
}

/** What the kit-vs-bare report calls things. */
export interface SessionReportNames {
  /** Starts each comparison's title ("pi session"). */
  readonly title: string;
  /** The session's agent in the time title ("Pi"). */
  readonly session: string;
  /** The agent's process in the memory titles ("Pi", "claude"). */
  readonly process: string;
  /** The verdict line's title. */
  readonly verdict: string;
  /** The bare side's row label. */
  readonly bare: string;
}

/**
 * The kit-vs-bare report: session time (with each phase), the agent's peak RSS, the tree's
 * summed peak RSS, every round's time, and the verdict against the session targets.
 */
function reportSessions(
  names: SessionReportNames,
  rounds: number,
  results: Readonly<Record<Side, readonly SessionRound[]>>,
): void {
  const med = (side: Side, pick: (round: SessionRound) => number) =>
    median(results[side].map(pick));
  const labels: Record<Side, string> = { bare: names.bare, kit: "kit (agent.session)" };
  const row = (side: Side, pick: (round: SessionRound) => number, unit: string) => ({
    label: labels[side],
    value: med(side, pick),
    unit,
  });
  const compare = (title: string, pick: (round: SessionRound) => number, unit: string) =>
    printComparison(`${names.title}: ${title}`, row("bare", pick, unit), [row("kit", pick, unit)]);
  compare(
    `one two-turn ${names.session} session (scripted model, shipping server), ms, median of ${rounds} rounds, lower is better`,
    (r) => r.wall,
    "ms",
  );
  for (const phase of ["open", "turn1", "turn2", "close"] as const) {
    const cells = SIDES.map(
      (side) =>
        `${side} ${med(side, (r) => r[phase])
          .toFixed(1)
          .padStart(7)}`,
    );
    console.log(`    ${phase.padEnd(6)} ${cells.join("  ")} ms`);
  }
  compare(
    `${names.process} peak RSS (VmHWM read before close), MB, median`,
    (r) => r.agent / MB,
    "MB",
  );
  compare(
    `${names.process} and everything below it (MCP server; kit: relay + server), summed peak RSS, MB, median`,
    (r) => (r.agent + r.below) / MB,
    "MB",
  );
  for (const side of SIDES) {
    const all = results[side].map((r) => r.wall.toFixed(0)).join(" ");
    console.log(`  ${side.padEnd(4)} every round (ms): ${all}`);
  }
  sessionVerdict(
    names.verdict,
    { bare: med("bare", (r) => r.wall), kit: med("kit", (r) => r.wall) },
    {
      bare: med("bare", (r) => r.agent + r.below) / MB,
      kit: med("kit", (r) => r.agent + r.below) / MB,
    },
  );
}

/** What a warm benchmark's seed session runs: one agent with `options: { warm: true }`. */
export interface WarmSide {
  /** Names the session in errors ("warm", "gemini warm"). */
  readonly what: string;
  readonly harnesses: readonly HarnessDefinition[];
  readonly agent: AgentSelectionInput;
  readonly timeout: number;
  readonly expected: readonly string[];
  /** A turn's calls that count (default: {@link quotesOf}, wire and reported). */
  readonly calls?: (turn: Parameters<typeof quotesOf>[0]) => number;
}

/** A warm seed session's phases, ms. */
export interface WarmPhases {
  readonly open: number;
  readonly turns: number;
  readonly close: number;
}

/**
 * One seed session through the kit on a warm agent, the server logging its calls to `log`:
 * both replies checked, one call per turn, the session completed, two calls in the log.
 */
export async function warmSession(side: WarmSide, log: string): Promise<WarmPhases> {
  await using kit = new MCPTestKit({ env: {}, harnesses: side.harnesses });
  const [selection] = kit.agents([side.agent]);
  const session = selection!.session({
    server: loggingServer(log),
    tools: ["shipping:shipping_quote"],
    timeout: side.timeout,
  });
  const count = side.calls ?? quotesOf;
  const before = callsLogged(log);
  const t0 = performance.now();
  let t1 = t0;
  let t2 = t0;
  {
    await using open = await session.open();
    t1 = performance.now();
    for (const [index, prompt] of PROMPTS.entries()) {
      const turn = await open.send(prompt);
      checkTurn(side.what, index + 1, turn.response?.text, count(turn), side.expected);
    }
    t2 = performance.now();
  }
  const t3 = performance.now();
  if (session.result.snapshot.outcome !== "completed") {
    throw new Error(`${side.what}: not completed`);
  }
  checkLog(log, "warm", before);
  return { open: t1 - t0, turns: t2 - t1, close: t3 - t2 };
}

/** How a warm benchmark runs its suites. */
export interface WarmSuites {
  readonly sessions: number;
  readonly suites: number;
  /** The temporary folder's prefix (the server's call logs). */
  readonly prefix: string;
  readonly script: string | Script;
  /** One bare session; `model` is the suite's when {@link bareModel}, else undefined. */
  readonly bare: (model: ScriptedModel | undefined) => Promise<unknown>;
  /** The bare side shares one scripted model per suite too (else each round starts its own). */
  readonly bareModel: boolean;
  /** The warm-up bare session (not counted). */
  readonly bareWarmUp: () => Promise<unknown>;
  /** One warm session, the server logging to `log`. */
  readonly warm: (model: ScriptedModel, log: string) => Promise<unknown>;
  /** Stops every warm agent of this process. */
  readonly stop: () => Promise<void>;
}

/** Per side, each suite's time and each session's, ms. */
export interface WarmTimes {
  readonly totals: Record<"bare" | "warm", number[]>;
  readonly each: Record<"bare" | "warm", number[]>;
}

/**
 * A warm-up session of each side (readiness probes, page cache; not counted), then `suites`
 * suites of `sessions` sessions per side, alternating (bare, warm, bare, warm, ...); each
 * warm suite starts cold (its first session starts the agent) and stops its agent within
 * its time. The warm sessions of a suite share one scripted model, as a suite's tests do.
 */
export async function warmSuites(run: WarmSuites): Promise<WarmTimes> {
  const dir = mkdtempSync(join(tmpdir(), run.prefix));
  const times: WarmTimes = { totals: { bare: [], warm: [] }, each: { bare: [], warm: [] } };
  let serial = 0;
  try {
    await run.bareWarmUp();
    const warmUp = await startScriptedModel(run.script);
    try {
      await run.warm(warmUp, join(dir, `w${serial++}.jsonl`));
    } finally {
      await run.stop();
      await warmUp.close();
    }
    for (let suite = 0; suite < run.suites; suite++) {
      for (const side of ["bare", "warm"] as const) {
        const shared = side === "warm" || run.bareModel;
        const model = shared ? await startScriptedModel(run.script) : undefined;
        const started = performance.now();
        try {
          for (let index = 0; index < run.sessions; index++) {
            const one = performance.now();
            // The bare round checks its replies, its calls and that nothing of it is left.
            // A suite's warm sessions share one server spec (one call log), as a suite's
            // tests do: each session checks that it added its two calls.
            if (side === "warm") await run.warm(model!, join(dir, `warm-${suite}.jsonl`));
            else await run.bare(model);
            times.each[side].push(performance.now() - one);
          }
          if (side === "warm") await run.stop(); // the suite's agent stops within its time
        } finally {
          await model?.close();
        }
        times.totals[side].push(performance.now() - started);
      }
    }
  } finally {
    await run.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return times;
}

/**
 * A warm benchmark's figures: `lead` starts the title ("warm-acp: Gemini CLI, "), then each
 * side's suite and per-session medians under its label, and the warm/bare ratio against the
 * 0.6× target.
 */
export function reportWarm(
  lead: string,
  labels: Readonly<Record<"bare" | "warm", string>>,
  { sessions, suites }: { readonly sessions: number; readonly suites: number },
  { totals, each }: WarmTimes,
): void {
  const ratio = median(totals.warm) / median(totals.bare);
  console.log(
    `\n${lead}a suite of ${sessions} two-turn seed sessions, ${suites} suites per side (alternating), ms`,
  );
  for (const side of ["bare", "warm"] as const) {
    console.log(
      `  ${labels[side]}  suite median ${median(totals[side]).toFixed(0)}  (suites: ${totals[side].map((t) => t.toFixed(0)).join(" ")}); per session median ${median(each[side]).toFixed(0)}`,
    );
  }
  console.log(
    `  warm / bare: ${ratio.toFixed(3)}×; target ≤ 0.6×: ${ratio <= 0.6 ? "met" : "NOT met"}`,
  );
}
