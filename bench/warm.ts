// A suite of N seed sessions (two turns, one quote each) through the kit with warm Codex
// app-servers (`options: { warm: true }`) against N sessions of the bare app-server driver
// (bench/app-server-driver.ts: one app-server per session, nothing of ours). Same binary,
// model script and shipping server; every session's replies and the server's own call log
// are checked. Suites alternate (bare, warm, bare, warm, ...) so noise hits both alike.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stopWarmPools } from "@jest-m3/core/runner";
import { resolveCodexExecutable } from "@jest-m3/harness-codex";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { INITIALIZE } from "@jest-m3/test-support";
import { BareAppServerSession } from "./app-server-driver";
import { median } from "./report";
import {
  checkLog,
  PROMPTS,
  reportWarm,
  SHIPPING,
  SHIPPING_EXPECTED as EXPECTED,
  SHIPPING_SCRIPT,
  warmSession,
} from "./support";

const MODEL = "gpt-5.5";

/** Per side, each session's phases (ms): open, the two turns, close. */
const phases: Record<"bare" | "warm", { open: number[]; turns: number[]; close: number[] }> = {
  bare: { open: [], turns: [], close: [] },
  warm: { open: [], turns: [], close: [] },
};

async function bare(model: ScriptedModel, codex: string, log: string): Promise<void> {
  const t0 = performance.now();
  const session = await BareAppServerSession.open({
    codex,
    model: MODEL,
    provider: model.provider,
    server: {
      name: "shipping",
      command: process.execPath,
      // The bare driver gives its server no env: the call log is set in the command itself.
      args: [
        "--eval",
        `process.env.SHIPPING_CALL_LOG = ${JSON.stringify(log)}; process.argv[1] = ${JSON.stringify(join(SHIPPING, "shipping-server.mjs"))}; import(${JSON.stringify(join(SHIPPING, "shipping-server.mjs"))});`,
      ],
      cwd: SHIPPING,
    },
    tools: ["shipping_quote"],
  });
  const t1 = performance.now();
  let t2 = t1;
  try {
    for (const [index, prompt] of PROMPTS.entries()) {
      const turn = await session.send(prompt);
      if (!turn.reply?.includes(EXPECTED[index]!)) throw new Error(`bare: replied ${turn.reply}`);
    }
    t2 = performance.now();
  } finally {
    await session.close();
  }
  record("bare", t0, t1, t2, performance.now());
}

function record(side: "bare" | "warm", t0: number, t1: number, t2: number, t3: number): void {
  phases[side].open.push(t1 - t0);
  phases[side].turns.push(t2 - t1);
  phases[side].close.push(t3 - t2);
}

async function warm(model: ScriptedModel, log: string): Promise<void> {
  const { open, turns, close } = await warmSession(
    {
      what: "warm",
      harnesses: [], // found by its name, as the kit finds it by default
      agent: {
        harness: "codex",
        models: [MODEL],
        provider: model.provider,
        options: { warm: true },
      },
      timeout: 60_000,
      expected: EXPECTED,
      // Codex's successful calls, on the wire.
      calls: (turn) => turn.toolCalls.filter((call) => call.status === "success").length,
    },
    log,
  );
  phases.warm.open.push(open);
  phases.warm.turns.push(turns);
  phases.warm.close.push(close);
}

/** The shipping server's own start: spawn to its answer to `initialize`, `rounds` times. */
async function serverStart(rounds: number): Promise<number[]> {
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    const child = spawn(process.execPath, [join(SHIPPING, "shipping-server.mjs")], {
      cwd: SHIPPING,
      stdio: ["pipe", "pipe", "ignore"],
    });
    await new Promise<void>((resolve, reject) => {
      child.once("error", reject);
      child.stdout.once("data", () => resolve());
      child.stdin.write(`${INITIALIZE}\n`);
    });
    times.push(performance.now() - started);
    child.kill();
    await new Promise((resolve) => child.once("close", resolve));
  }
  return times;
}

export async function benchWarm({ sessions = 8, suites = 2 } = {}): Promise<void> {
  const lookup = resolveCodexExecutable({}, {});
  if (!lookup.found) throw new Error(lookup.reason);
  const model = await startScriptedModel(SHIPPING_SCRIPT);
  const dir = mkdtempSync(join(tmpdir(), "bench-warm-"));
  const totals: Record<"bare" | "warm", number[]> = { bare: [], warm: [] };
  let server: number[] = [];
  const each: Record<"bare" | "warm", number[]> = { bare: [], warm: [] };
  let serial = 0;
  try {
    // Warm-up, not counted: readiness probes, page cache.
    await bare(model, lookup.path, join(dir, `w${serial++}.jsonl`)).catch(() => undefined);
    await warm(model, join(dir, `w${serial++}.jsonl`));
    await stopWarmPools(); // each counted warm suite starts cold: its first session pays
    for (let suite = 0; suite < suites; suite++) {
      for (const side of ["bare", "warm"] as const) {
        const started = performance.now();
        for (let index = 0; index < sessions; index++) {
          // The warm sessions of a suite share one server spec (one call log), as a suite's
          // tests do; each checks that it added its two calls (warmSession).
          const log = join(dir, side === "bare" ? `bare-${serial++}.jsonl` : `warm-${suite}.jsonl`);
          const one = performance.now();
          if (side === "bare") await bare(model, lookup.path, log);
          else await warm(model, log);
          each[side].push(performance.now() - one);
          if (side === "bare") checkLog(log, side);
        }
        if (side === "warm") await stopWarmPools();
        totals[side].push(performance.now() - started);
      }
    }
    // Measured after the suites, with the same page cache the sessions had.
    server = await serverStart(10);
  } finally {
    await stopWarmPools();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
  reportWarm(
    "warm: ",
    { bare: "bare app-server driver", warm: "kit, warm app-server  " },
    { sessions, suites },
    { totals, each },
  );
  for (const side of ["bare", "warm"] as const) {
    const of = (list: number[]) => median(list.slice(-sessions * suites)).toFixed(0);
    console.log(
      `  ${side} phases (median ms): open ${of(phases[side].open)}, two turns ${of(phases[side].turns)}, close ${of(phases[side].close)}`,
    );
  }
  console.log(
    `  the shipping server alone, spawn to its initialize answer (median of ${server.length}): ${median(server).toFixed(0)} ms: both sides start it for every session, so no reuse of the agent can take it off`,
  );
  console.log("  every session: both replies checked, two calls in the server's own log");
}

if (require.main === module) {
  benchWarm().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
