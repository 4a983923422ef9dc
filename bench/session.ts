// A two-turn agent session through the kit vs the bare app-server driver
// (bench/app-server-driver.ts): the same Codex binary and flags, the same scripted model,
// the same shipping MCP server, the same prompts. A third side, "relay", is the bare driver
// with the MCP server launched through the kit's wire capture (`kit.capture()`) and nothing
// else of the kit: it tells how much of the difference is the relay. Rounds rotate the
// order of the sides so machine noise hits all alike; the figures are medians.
//
// What the kit does in addition, and what this measures the price of: a readiness check
// (cached per process after the first session, which is why a warm-up round of each side is
// not counted), the wire capture (a stdio relay, a second Node process, in front of the MCP
// server, mirroring every line to the kit over a local socket, enforcing the allow-list; a
// flush at the end of each turn), a recorded approval decision, the trace with every
// message, the correlation of wire and reported tool calls, the per-turn results, and a
// process-group stop that waits until nothing of the session is left.
//
// Measured per round:
// - wall time: open (kit: new MCPTestKit + agents + session + open(); bare: temp homes +
//   spawn + initialize + thread/start + MCP ready), each turn (send to turn/completed),
//   close (kit: session.close() + kit.close(); bare: close stdin, wait for exit, remove the
//   temp homes; relay: the same, then the capture's close). The /proc reading between
//   turn 2 and close is not counted.
// - app-server peak RSS: VmHWM of the `codex app-server` process from /proc/<pid>/status,
//   read just before close (so it covers the whole session).
// - MCP side peak RSS: the VmHWM of every process below the app-server, summed (bare: the
//   shipping server; relay and kit: the relay and the shipping server).
// - this Node process: the peak heapUsed and peak RSS above the values at the round's
//   start (after a forced GC), sampled every 10 ms. The scripted model runs in this process
//   for every side (one model server per round, started before the round's baseline).
// After every round, every process of the session (the app-server and everything below it,
// as seen before close) must be gone, checked by pid.
import { readdirSync, readFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { MCPTestKit } from "@jest-m3/core";
import { resolveCodexExecutable } from "@jest-m3/harness-codex";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { BareAppServerSession } from "./app-server-driver";
import { alive, stat } from "./process-tree";
import { median, printComparison } from "./report";
import {
  checkTurn,
  MB,
  PROMPTS,
  SHIPPING,
  SHIPPING_EXPECTED,
  SHIPPING_SCRIPT,
  SHIPPING_SERVER,
} from "./support";

const SCRIPT = SHIPPING_SCRIPT;
const SERVER = SHIPPING_SERVER;
const MODEL = "gpt-5.5";

type Side = "bare" | "relay" | "kit";

interface Phases {
  open: number;
  turn1: number;
  turn2: number;
  close: number;
}

interface Tree {
  /** The app-server's VmHWM, bytes. */
  readonly appServer: number;
  /** The summed VmHWM of every process below the app-server, bytes. */
  readonly mcpSide: number;
  /** `comm` of the processes below the app-server. */
  readonly below: readonly string[];
  readonly pids: readonly number[];
}

interface Round {
  readonly phases: Phases;
  readonly wall: number;
  readonly tree: Tree;
  readonly heapPeak: number;
  readonly rssPeak: number;
  /** How long the session's processes outlived close(), ms (0: gone when it returned). */
  readonly lingered: number;
}

function forcedGc(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

function childrenOf(parent: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => stat(pid)?.ppid === parent);
}

function vmHwm(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmHWM for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/** The app-server's peak RSS and that of everything below it, read now. */
function inspectTree(appServer: number): Tree {
  const below: number[] = [];
  for (let queue = childrenOf(appServer); queue.length > 0;) {
    const pid = queue.shift()!;
    below.push(pid);
    queue = [...queue, ...childrenOf(pid)];
  }
  return {
    appServer: vmHwm(appServer),
    mcpSide: below.reduce((sum, pid) => sum + vmHwm(pid), 0),
    below: below.map((pid) => stat(pid)?.comm ?? "?"),
    pids: [appServer, ...below],
  };
}

/** The one `codex` process this process started (the kit's app-server). */
function ownAppServer(): number {
  const found = childrenOf(process.pid).filter((pid) => stat(pid)?.comm === "codex");
  if (found.length !== 1) throw new Error(`expected one codex child, found ${found.length}`);
  return found[0]!;
}

/** Waits up to 2 s for `pids` to be gone; returns how long it took, throws if they stay. */
async function gone(pids: readonly number[], side: Side): Promise<number> {
  const started = performance.now();
  while (pids.some(alive)) {
    if (performance.now() - started > 2000) {
      const left = pids.filter(alive);
      for (const pid of left) process.kill(pid, "SIGKILL"); // ours: the session's own tree
      throw new Error(`${side}: processes ${left.join(", ")} outlived the session by 2 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now() - started;
}

function check(side: Side, turn: number, reply: string | null | undefined, calls: number): void {
  checkTurn(side, turn, reply, calls, SHIPPING_EXPECTED);
}

async function kitSession(model: ScriptedModel): Promise<Omit<Round, "heapPeak" | "rssPeak">> {
  const t0 = performance.now();
  const kit = new MCPTestKit({ env: {} });
  try {
    // A cold session, as the bare driver's (Codex sessions are warm by default).
    const [agent] = kit.agents([
      { harness: "codex", models: [MODEL], provider: model.provider, options: { warm: false } },
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
    const tree = inspectTree(ownAppServer());
    const t4 = performance.now();
    await session.close();
    await kit.close();
    const t5 = performance.now();
    const lingered = await gone(tree.pids, "kit");
    const result = session.result;
    if (result.snapshot.outcome !== "completed") {
      throw new Error(`kit: the session ended ${result.snapshot.outcome}: ${result.error}`);
    }
    [first, second].forEach((turn, index) => {
      const quotes = turn.toolCalls.filter(
        (call) =>
          call.tool === "shipping_quote" && call.status === "success" && call.evidence === "both",
      );
      check("kit", index + 1, turn.response?.text, quotes.length);
    });
    const phases = { open: t1 - t0, turn1: t2 - t1, turn2: t3 - t2, close: t5 - t4 };
    return { phases, wall: t3 - t0 + (t5 - t4), tree, lingered };
  } finally {
    await kit.close();
  }
}

/**
 * The bare driver; with `relayed`, the MCP server is launched through the kit's wire
 * capture (`kit.capture()`: the stdio relay and the channel) and nothing else of the kit,
 * which tells how much of the kit's cost is the relay.
 */
async function bareSession(
  model: ScriptedModel,
  codex: string,
  relayed: boolean,
): Promise<Omit<Round, "heapPeak" | "rssPeak">> {
  const side: Side = relayed ? "relay" : "bare";
  const t0 = performance.now();
  const kit = relayed ? new MCPTestKit({ env: {} }) : undefined;
  let session: BareAppServerSession | undefined;
  try {
    const wrapped = await kit?.capture({ servers: [SERVER], tools: ["shipping:shipping_quote"] });
    const server = wrapped?.servers[0] ?? { ...SERVER, args: SERVER.args ?? [], cwd: SHIPPING };
    if ("url" in server) throw new Error("expected a stdio relay");
    session = await BareAppServerSession.open({
      codex,
      model: MODEL,
      provider: model.provider,
      server,
      tools: ["shipping_quote"],
    });
    const t1 = performance.now();
    const first = await session.send(PROMPTS[0]);
    const t2 = performance.now();
    const second = await session.send(PROMPTS[1]);
    const t3 = performance.now();
    const tree = inspectTree(session.pid);
    const t4 = performance.now();
    const closing = session;
    session = undefined;
    await closing.close();
    const wire = wrapped?.capture.trace.toolCalls.filter((call) => call.status === "success");
    await kit?.close();
    const t5 = performance.now();
    const lingered = await gone(tree.pids, side);
    [first, second].forEach((turn, index) => {
      if (turn.status !== "completed") throw new Error(`${side}: turn ${index + 1} ${turn.reply}`);
      const quotes = turn.toolCalls.filter(
        (call) =>
          call.server === "shipping" &&
          call.tool === "shipping_quote" &&
          call.status === "completed",
      );
      check(side, index + 1, turn.reply, quotes.length);
    });
    if (wire && wire.length !== 2) throw new Error(`relay: ${wire.length} calls on the wire`);
    const phases = { open: t1 - t0, turn1: t2 - t1, turn2: t3 - t2, close: t5 - t4 };
    return { phases, wall: t3 - t0 + (t5 - t4), tree, lingered };
  } finally {
    await session?.close();
    await kit?.close();
  }
}

/** One session of `side` with its own scripted model, with this process's memory sampled. */
async function round(side: Side, codex: string, gc: () => void): Promise<Round> {
  const model = await startScriptedModel(SCRIPT);
  try {
    gc();
    const base = process.memoryUsage();
    let heapPeak = base.heapUsed;
    let rssPeak = base.rss;
    const sample = (): void => {
      const now = process.memoryUsage();
      heapPeak = Math.max(heapPeak, now.heapUsed);
      rssPeak = Math.max(rssPeak, now.rss);
    };
    const sampler = setInterval(sample, 10);
    try {
      const measured =
        side === "kit"
          ? await kitSession(model)
          : await bareSession(model, codex, side === "relay");
      sample();
      model.journal.assertNoProblems();
      return { ...measured, heapPeak: heapPeak - base.heapUsed, rssPeak: rssPeak - base.rss };
    } finally {
      clearInterval(sampler);
    }
  } finally {
    await model.close();
  }
}

function medianOf(rounds: readonly Round[], pick: (round: Round) => number): number {
  return median(rounds.map(pick));
}

const SIDES: readonly Side[] = ["bare", "relay", "kit"];
const LABELS: Readonly<Record<Side, string>> = {
  bare: "bare app-server driver",
  relay: "bare + wire relay only",
  kit: "kit (agent.session)",
};

function compare(
  title: string,
  results: Readonly<Record<Side, readonly Round[]>>,
  unit: string,
  pick: (round: Round) => number,
): Record<Side, number> {
  const figures = {} as Record<Side, number>;
  for (const side of SIDES) figures[side] = medianOf(results[side], pick);
  const row = (side: Side) => ({ label: LABELS[side], value: figures[side], unit });
  printComparison(title, row("bare"), [row("relay"), row("kit")]);
  return figures;
}

export async function benchSession({ rounds = 5 } = {}): Promise<void> {
  const lookup = resolveCodexExecutable({}, {});
  if (!lookup.found) throw new Error(lookup.reason);
  const codex = lookup.path;
  const gc = forcedGc();
  // Warm-up, not counted: the kit's one-time readiness probes (codex --version, a probe
  // app-server), the binary in the page cache, every code path JIT-compiled.
  const warm = {} as Record<Side, Round>;
  for (const side of SIDES) warm[side] = await round(side, codex, gc);
  const results: Record<Side, Round[]> = { bare: [], relay: [], kit: [] };
  for (let index = 0; index < rounds; index++) {
    // The order rotates every round, so no side always runs first or last.
    const order = SIDES.map((_, offset) => SIDES[(index + offset) % SIDES.length]!);
    for (const side of order) results[side].push(await round(side, codex, gc));
  }

  const wall = compare(
    `session: one two-turn Codex session (${MODEL}, scripted model, shipping server), ms, median of ${rounds} rounds, lower is better`,
    results,
    "ms",
    (round) => round.wall,
  );
  for (const phase of ["open", "turn1", "turn2", "close"] as const) {
    const cells = SIDES.map(
      (side) =>
        `${side} ${medianOf(results[side], (round) => round.phases[phase])
          .toFixed(1)
          .padStart(6)}`,
    );
    console.log(`    ${phase.padEnd(6)} ${cells.join("  ")} ms`);
  }
  const ratio = wall.kit / wall.bare;
  console.log(
    `  target, kit within 10% of bare: ${ratio <= 1.1 ? "met" : "NOT met"} (kit ${((ratio - 1) * 100).toFixed(1)}% over bare; the relay alone ${((wall.relay / wall.bare - 1) * 100).toFixed(1)}%)`,
  );
  for (const side of SIDES) {
    const all = results[side].map((round) => round.wall.toFixed(0)).join(" ");
    console.log(`  ${side.padEnd(5)} every round (ms): ${all}`);
  }
  const warmUp = SIDES.map((side) => `${side} ${warm[side].wall.toFixed(0)} ms`).join(", ");
  console.log(`  warm-up, not counted (the kit's includes its readiness probes): ${warmUp}`);

  const inMB = (pick: (round: Round) => number) => (round: Round) => pick(round) / MB;
  compare(
    "session: codex app-server peak RSS (VmHWM read before close), MB, median",
    results,
    "MB",
    inMB((round) => round.tree.appServer),
  );
  compare(
    "session: the processes below the app-server, summed peak RSS (VmHWM), MB, median",
    results,
    "MB",
    inMB((round) => round.tree.mcpSide),
  );
  compare(
    "session: app-server and everything below it, summed peak RSS, MB, median",
    results,
    "MB",
    inMB((round) => round.tree.appServer + round.tree.mcpSide),
  );
  compare(
    "session: this Node process, peak heapUsed above the round's start (after GC), MB, median",
    results,
    "MB",
    inMB((round) => round.heapPeak),
  );
  // RSS rarely moves (V8 reuses the heap it already holds): a line, not a ratio.
  const rss = SIDES.map(
    (side) =>
      `${side} ${medianOf(
        results[side],
        inMB((round) => round.rssPeak),
      ).toFixed(2)}`,
  );
  console.log(
    `  this Node process, peak RSS above the round's start (MB, median): ${rss.join(", ")}`,
  );
  const below = SIDES.map((side) => `${side}: ${results[side][0]!.tree.below.join(", ")}`);
  console.log(`  processes below the app-server (comm): ${below.join("; ")}`);
  const lingered = Math.max(
    ...SIDES.flatMap((side) => results[side].map((round) => round.lingered)),
  );
  console.log(
    `  every round: replies checked (9 USD, then 15.5), one successful quote per turn, every process gone by pid (longest wait after close: ${lingered.toFixed(0)} ms)`,
  );
}

/** One round of one side (for bench/memory.ts, which samples memory around it). */
export { round as codexRound, forcedGc };
