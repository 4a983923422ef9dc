/**
 * The adapter kit's warm pool over real processes (idle Node scripts): shared and exclusive
 * leases, the idle stop, a dead process replaced, the runner's stop of every pool, the
 * announcement of each process, and a shared agent left by a session (its servers stopped). The system's process table is the ground truth.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AgentProcess,
  ManagedProcess,
  WarmAgents,
  WarmPool,
  announceWarmProcess,
  holdProcess,
  isProcessAlive,
  killProcessGroup,
  type WarmAgentLease,
  type WarmProcess,
} from "@jest-m3/core/adapter-kit";
import { defaultRuntime, stopWarmPools } from "@jest-m3/core/runner";

interface Warm {
  readonly agent: AgentProcess;
  readonly spec: string;
}

// What the preset's process ledger hears: the runtime's observers.
const announced: WarmProcess[] = [];
const stopListening = defaultRuntime().observe({
  processStarted: (started) => void announced.push(started),
});
afterAll(() => stopListening());

function pool(
  lease: "shared" | "exclusive",
  idleMs = 60_000,
  maxSessions?: number,
  /** Holds each start after its process is up (`up` called) until `opened` resolves. */
  gate?: { readonly opened: Promise<void>; readonly up: () => void },
): { pool: WarmPool<string, Warm>; starts: string[] } {
  const starts: string[] = [];
  const made = new WarmPool<string, Warm>({
    lease,
    idleMs,
    ...(maxSessions === undefined ? {} : { maxSessions }),
    start: async (spec) => {
      starts.push(spec);
      const child = new ManagedProcess({
        label: `warm ${spec}`,
        command: process.execPath,
        args: ["-e", "setInterval(() => undefined, 1000)"],
        env: { PATH: process.env.PATH ?? "" },
      });
      announceWarmProcess({
        pid: child.pid,
        label: child.launch.label,
        command: child.launch.command,
      });
      await child.spawned;
      gate?.up();
      await gate?.opened;
      return { agent: new AgentProcess(child), spec };
    },
    alive: (warm) => warm.agent.exitDescription === undefined,
    stop: (warm) => warm.agent.close(200),
    kill: (warm) => killProcessGroup(warm.agent.pid),
    hold: (warm, ref) => holdProcess(warm.agent.process.child, ref),
  });
  return { pool: made, starts };
}

afterEach(() => stopWarmPools());

test("shared: sessions of one key use one process at once; it stays until the last lets go", async () => {
  const { pool: shared, starts } = pool("shared");
  const [a, b] = await Promise.all([shared.acquire("k", "one"), shared.acquire("k", "two")]);
  expect(a.warm).toBe(b.warm);
  expect(starts).toEqual(["one"]);
  expect([a.started, b.started].sort()).toEqual([false, true]);
  await a.release();
  expect(isProcessAlive(b.warm.agent.pid!)).toBe(true);
  await b.release();
  const c = await shared.acquire("k", "three");
  expect(c.warm).toBe(a.warm);
  const other = await shared.acquire("other key", "four");
  expect(other.warm).not.toBe(a.warm);
  expect(announced.map((each) => each.pid)).toEqual(
    expect.arrayContaining([a.warm.agent.pid, other.warm.agent.pid]),
  );
});

test("shared with maxSessions: a process serves at most that many sessions at once; the next gets a process of its own", async () => {
  const { pool: capped, starts } = pool("shared", 60_000, 3);
  // Seven sessions at once, all waiting on starts: 3 + 3 + 1.
  const leases = await Promise.all(
    Array.from({ length: 7 }, (_, index) => capped.acquire("k", `s${index}`)),
  );
  const processes = [...new Set(leases.map((lease) => lease.warm))];
  expect(starts).toEqual(["s0", "s3", "s6"]);
  expect(processes.map((warm) => leases.filter((lease) => lease.warm === warm).length)).toEqual([
    3, 3, 1,
  ]);
  expect(leases.filter((lease) => lease.started)).toHaveLength(3);
  // Running processes below their limit take the next sessions (one place free on the
  // first, two on the last); only then does a session start another.
  await leases[0]!.release();
  const more = await Promise.all(["x", "y", "z"].map((spec) => capped.acquire("k", spec)));
  expect(starts).toHaveLength(3);
  const held = [...leases.slice(1), ...more];
  expect(processes.map((warm) => held.filter((lease) => lease.warm === warm).length)).toEqual([
    3, 3, 3,
  ]);
  const fourth = await capped.acquire("k", "w");
  expect(processes).not.toContain(fourth.warm);
  expect(starts).toEqual(["s0", "s3", "s6", "w"]);
  for (const warm of processes) expect(isProcessAlive(warm.agent.pid!)).toBe(true);
  expect(() => pool("shared", 60_000, 0)).toThrow(/maxSessions must be a whole number ≥ 1, got 0/);
});

test("shared with maxSessions: a session that comes as a start ends never finds the process with free places its waiting sessions hold", async () => {
  // Two sessions wait on one start at a limit of 2; a third comes 0 to 6 microtask steps
  // after the start's process is up, when the waiting two may not have their leases yet.
  for (let steps = 0; steps <= 6; steps++) {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    let up!: () => void;
    const started = new Promise<void>((resolve) => (up = resolve));
    const { pool: capped, starts } = pool("shared", 60_000, 2, { opened, up });
    const first = [capped.acquire("k", "a"), capped.acquire("k", "b")];
    await started; // the process is up; its start returns when the gate opens
    const late = opened.then(async () => {
      for (let step = 0; step < steps; step++) await null;
      return capped.acquire("k", "c");
    });
    open();
    const [a, b, c] = await Promise.all([...first, late]);
    expect({ steps, shared: a!.warm === b!.warm }).toEqual({ steps, shared: true });
    expect({ steps, third: c!.warm === a!.warm }).toEqual({ steps, third: false });
    expect({ steps, starts }).toEqual({ steps, starts: ["a", "c"] });
    await capped.stopAll();
  }
});

test("shared: a process a session found unresponsive (release(false)) is stopped, the next session gets a new one", async () => {
  const { pool: shared, starts } = pool("shared");
  const [a, b] = await Promise.all([shared.acquire("k", "one"), shared.acquire("k", "two")]);
  const pid = a.warm.agent.pid!;
  await a.release(false);
  expect(isProcessAlive(pid)).toBe(false);
  await b.release();
  const c = await shared.acquire("k", "three");
  expect(c.started).toBe(true);
  expect(c.warm.agent.pid).not.toBe(pid);
  expect(starts).toEqual(["one", "three"]);
});

test("exclusive: a busy process is not shared; a released one is reused, an unreset one stopped", async () => {
  const { pool: exclusive, starts } = pool("exclusive");
  const first = await exclusive.acquire("k", "one");
  const second = await exclusive.acquire("k", "two");
  expect(second.warm).not.toBe(first.warm);
  await first.release(true);
  const third = await exclusive.acquire("k", "three");
  expect(third.warm).toBe(first.warm);
  expect(third.started).toBe(false);
  const pid = second.warm.agent.pid!;
  await second.release(false);
  expect(isProcessAlive(pid)).toBe(false);
  expect(starts).toEqual(["one", "two"]);
  expect(exclusive.all).toEqual([first.warm]);
});

test("a process that died is replaced; an idle one stops after idleMs", async () => {
  const { pool: exclusive, starts } = pool("exclusive", 100);
  const first = await exclusive.acquire("k", "one");
  await first.release(true);
  killProcessGroup(first.warm.agent.pid);
  await first.warm.agent.process.exited;
  const second = await exclusive.acquire("k", "two");
  expect(second.warm).not.toBe(first.warm);
  expect(starts).toEqual(["one", "two"]);
  await second.release(true);
  await second.warm.agent.process.exited;
  expect(exclusive.all).toEqual([]);
});

test("the runner's stopWarmPools stops every pool's processes, leased or idle", async () => {
  const { pool: shared } = pool("shared");
  const { pool: exclusive } = pool("exclusive");
  const leased = await shared.acquire("k", "a");
  const idle = await exclusive.acquire("k", "b");
  await idle.release(true);
  const pids = [leased.warm.agent.pid!, idle.warm.agent.pid!];
  await stopWarmPools();
  expect(pids.filter(isProcessAlive)).toEqual([]);
  expect([...shared.all, ...exclusive.all]).toEqual([]);
});

test("WarmAgents leaveShared: the session's MCP servers in a shared agent stop; it is kept only when it answered", async () => {
  // The agent starts one "MCP server" child per line on stdin, as agents start a session's servers.
  const server = ["-e", "setInterval(() => undefined, 1000)", "m3-leave-shared-server"];
  const AGENT = String.raw`
const { spawn } = require("node:child_process");
require("node:readline").createInterface({ input: process.stdin }).on("line", () => {
  const child = spawn(process.execPath, ${JSON.stringify(server)}, { stdio: "ignore" });
  console.log(String(child.pid));
});
setInterval(() => undefined, 1000);
`;
  const warm = new WarmAgents({
    label: "leave-shared agent (warm)",
    lease: "shared",
    client: (child) => ({ agent: new AgentProcess(child) }),
  });
  const spec = async () => ({
    command: process.execPath,
    args: ["-e", AGENT],
    env: { PATH: process.env.PATH ?? "" },
    root: await mkdtemp(join(tmpdir(), "m3-leave-shared-")),
  });
  const serverOf = async (lease: WarmAgentLease<{ agent: AgentProcess }>): Promise<number> => {
    const { child } = lease.client.agent.process;
    const pid = new Promise<number>((resolve) =>
      child.stdout.once("data", (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
    );
    child.stdin.write("start a server\n");
    return pid;
  };
  const servers = [{ kind: "stdio", command: process.execPath, args: server }];
  const first = await warm.acquire(await spec());
  const started = await serverOf(first);
  expect(isProcessAlive(started)).toBe(true);
  await first.leaveShared(servers, () => Promise.resolve(true), 500);
  expect(isProcessAlive(started)).toBe(false);
  const second = await warm.acquire(await spec());
  expect(second.started).toBe(false); // it answered: kept for the next session
  const agentPid = second.client.agent.pid!;
  await second.leaveShared([], () => Promise.resolve(false), 500);
  expect(isProcessAlive(agentPid)).toBe(false); // it did not: stopped
  await warm.stopAll();
});

test("a pool hooks the process's exit while it has processes, and unhooks it with its last one", async () => {
  // A Jest worker runs file after file on one process, each file with pools of its own: a
  // hook left behind would keep every finished file's pool alive (Node warns past ten).
  const before = process.listenerCount("exit");
  const { pool: shared } = pool("shared");
  const a = await shared.acquire("k", "one");
  const b = await shared.acquire("other key", "two");
  expect(process.listenerCount("exit")).toBe(before + 1);
  await a.release();
  await shared.stopAll();
  expect(isProcessAlive(b.warm.agent.pid!)).toBe(false);
  expect(process.listenerCount("exit")).toBe(before);
  // A pool used again hooks it again.
  await shared.acquire("k", "three");
  expect(process.listenerCount("exit")).toBe(before + 1);
  await shared.stopAll();
  expect(process.listenerCount("exit")).toBe(before);
});
