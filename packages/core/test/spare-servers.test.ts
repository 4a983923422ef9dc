// Spare servers: a server process started ahead of a warm agent's next session and handed to
// the one relay that would start exactly the same process. The agent here is a real process
// that starts its MCP servers with the SDK's stdio client and stays alive between sessions
// (fixtures/mcp-launcher.mjs), as a warm agent does; the servers are real SDK servers that
// log who they are at start (the ground truth: pid, start time, folder, whole environment).
import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { MCPTestKit, type StdioServer } from "@jest-m3/core";
import { SPARE_SERVERS_VARIABLE, stdioRelayLaunch, stopSpareServers } from "@jest-m3/core/runner";
import { startLog, startLogServer, waitFor, type LoggedStart } from "@jest-m3/test-support";
import { isRunning } from "./support/processes";

const LAUNCHER = join(__dirname, "fixtures", "mcp-launcher.mjs");

/** A process that starts servers the way an agent does and outlives each session. */
class Launcher {
  readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private readonly answers = new Map<number, (answer: { text?: string; error?: string }) => void>();
  private next = 1;

  constructor(env: Record<string, string | undefined> = process.env) {
    this.child = spawn(process.execPath, [LAUNCHER], { env, stdio: ["pipe", "pipe", "inherit"] });
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      const answer = JSON.parse(line) as { id: number; text?: string; error?: string };
      this.answers.get(answer.id)?.(answer);
    });
  }

  /** One session's connection: initialize, one call, close. Resolves to the quote. */
  async connect(server: {
    command: string;
    args: readonly string[];
    env: object;
  }): Promise<string> {
    const id = this.next++;
    const answered = new Promise<{ text?: string; error?: string }>((resolve) =>
      this.answers.set(id, resolve),
    );
    this.child.stdin.write(JSON.stringify({ id, server }) + "\n");
    const answer = await answered;
    if (answer.error !== undefined) throw new Error(answer.error);
    return answer.text!;
  }

  async exit(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.stdin.end();
    await exited;
  }
}

/** One session on `launcher`: wraps `spec` for capture, connects, closes the capture. */
async function session(
  kit: MCPTestKit,
  launcher: Launcher,
  spec: StdioServer,
  before?: () => Promise<void>,
): Promise<{ serverPid: number; spare: boolean; quote: string; opened: number }> {
  const { capture, servers } = await kit.capture({ servers: [spec] });
  const opened = Date.now();
  const server = servers[0]!;
  if (server.kind !== "stdio") throw new Error("a stdio server was wrapped as HTTP");
  const quote = await launcher.connect(server);
  await capture.flush();
  await before?.();
  await capture.close();
  const connected = capture.trace.events.find((event) => event.kind === "connected");
  const pid = /server pid (\d+)/.exec(connected?.detail ?? "")?.[1];
  if (!pid) throw new Error(`no server pid in ${JSON.stringify(connected)}`);
  return { serverPid: Number(pid), spare: connected!.detail.includes("a spare"), quote, opened };
}

const startOf = (starts: readonly LoggedStart[], pid: number): LoggedStart => {
  const found = starts.find((start) => start.pid === pid);
  if (!found) throw new Error(`server pid ${pid} logged no start`);
  return found;
};

let dir: string;
let kit: MCPTestKit;
const launchers: Launcher[] = [];

beforeAll(() => {
  // Spares pass a server's pipes between processes: the native relay does it, the Node one
  // cannot. This repository's install builds the native relay; a test of spares needs it.
  expect(stdioRelayLaunch().kind).toBe("native");
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "m3-spares-test-"));
  kit = new MCPTestKit({ env: {} });
});

afterEach(async () => {
  await Promise.all(launchers.splice(0).map((launcher) => launcher.exit()));
  await kit.close();
  await stopSpareServers();
  rmSync(dir, { recursive: true, force: true });
});

function launcher(env?: Record<string, string | undefined>): Launcher {
  const started = new Launcher(env);
  launchers.push(started);
  return started;
}

test("a warm agent's next sessions get spares: the same process each would have started, used by no other, stopped when unused", async () => {
  const log = join(dir, "starts.jsonl");
  const spec = startLogServer(log);
  const agent = launcher();
  const first = await session(kit, agent, spec);
  // A spec served once gets none (a suite's every test may have its own).
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(startLog(log)).toHaveLength(1);
  const again = await session(kit, agent, spec);
  expect([first.spare, again.spare]).toEqual([false, false]);
  // The agent outlived its sessions and served this spec twice: two spares wait.
  await waitFor(() => startLog(log).length === 4, "two spares to start");
  const second = await session(kit, agent, spec);
  const third = await session(kit, agent, spec);
  expect([second.spare, third.spare]).toEqual([true, true]);
  for (const later of [second, third]) expect(later.quote).toBe(first.quote);
  const starts = startLog(log);
  // Each started before the session that used it, and each served one session only.
  expect(startOf(starts, second.serverPid).at).toBeLessThan(second.opened);
  expect(startOf(starts, third.serverPid).at).toBeLessThan(third.opened);
  expect(new Set([first.serverPid, again.serverPid, second.serverPid, third.serverPid]).size).toBe(
    4,
  );
  // The process the session would have started: same folder, same environment, to the letter.
  const own = startOf(starts, first.serverPid);
  for (const later of [second, third]) {
    const spare = startOf(starts, later.serverPid);
    expect(spare.cwd).toBe(own.cwd);
    expect(spare.env).toEqual(own.env);
  }
  // Used servers ended with their sessions; the ones still waiting end with stopSpareServers.
  await waitFor(() => startLog(log).length === 6, "the spares to be topped up");
  const used = [first.serverPid, again.serverPid, second.serverPid, third.serverPid];
  const waiting = startLog(log)
    .map((start) => start.pid)
    .filter((pid) => !used.includes(pid));
  expect(waiting).toHaveLength(2);
  expect(waiting.every(isRunning)).toBe(true);
  await stopSpareServers();
  await waitFor(() => startLog(log).every((start) => !isRunning(start.pid)), "every server to end");
});

test("a relay whose server would differ (another agent's home) starts its own, and the spares keep waiting", async () => {
  const log = join(dir, "starts.jsonl");
  const spec = startLogServer(log);
  const agent = launcher();
  await session(kit, agent, spec);
  await session(kit, agent, spec);
  await waitFor(() => startLog(log).length === 4, "two spares to start");
  const home = mkdtempSync(join(dir, "home-"));
  const other = await session(kit, launcher({ ...process.env, HOME: home }), spec);
  expect(other.spare).toBe(false);
  const own = startOf(startLog(log), other.serverPid);
  expect(own.at).toBeGreaterThanOrEqual(other.opened);
  expect(own.env.HOME).toBe(home);
  const spares = startLog(log).slice(2, 4);
  expect(spares.every((start) => start.env.HOME === process.env.HOME)).toBe(true);
  expect(spares.every((start) => isRunning(start.pid))).toBe(true);
});

test("an agent that ends with its session gets no spare; nor does any agent with M3_SPARE_SERVERS=off", async () => {
  const log = join(dir, "starts.jsonl");
  const spec = startLogServer(log);
  const cold = launcher();
  await session(kit, cold, spec);
  await session(kit, cold, spec, () => cold.exit());
  const off = launcher();
  process.env[SPARE_SERVERS_VARIABLE] = "off";
  try {
    await session(kit, off, spec);
    await session(kit, off, spec);
  } finally {
    delete process.env[SPARE_SERVERS_VARIABLE];
  }
  // Give a spare the time it would need to log its start: none comes.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(startLog(log)).toHaveLength(4);
});

test("a parked server ends with its parked relay when the process that parked it goes away", async () => {
  const log = join(dir, "starts.jsonl");
  const spec = startLogServer(log);
  const relay = stdioRelayLaunch();
  const parked = spawn(
    relay.command,
    [
      ...relay.args,
      "--park",
      join(dir, "s.sock"),
      "--env-keep",
      '["START_LOG"]',
      "--cwd",
      dir,
      "--",
      spec.command,
      ...spec.args!,
    ],
    { env: { ...process.env, ...spec.env }, stdio: ["pipe", "pipe", "inherit"] },
  );
  const ready = await new Promise<string>((resolve) =>
    createInterface({ input: parked.stdout }).once("line", resolve),
  );
  const serverPid = Number(/^ready (\d+)$/.exec(ready)?.[1]);
  expect(isRunning(serverPid)).toBe(true);
  await waitFor(() => startLog(log).length === 1, "the parked server to start");
  expect(startLog(log)[0]!.pid).toBe(serverPid);
  parked.stdin.end(); // what a dead worker's pipe looks like from the parked relay
  await new Promise((resolve) => parked.once("exit", resolve));
  await waitFor(() => !isRunning(serverPid), "the parked server to end");
});
