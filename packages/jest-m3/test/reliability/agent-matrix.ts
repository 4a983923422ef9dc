/**
 * The fault matrix of issue 22, one agent per test file (agent-matrix-<agent>.test.ts), so
 * Jest's workers run the agents side by side while each agent's cells run one at a time.
 * Every cell drives the real agent binary through the public API (`MCPTestKit`, sessions,
 * turns) on one scripted model shared by the file, with real MCP servers, and asserts:
 *
 * - a readable result: the turn's and session's outcome, the error's words naming the fault;
 * - no evidence lost: the calls the server received are in the kit's records, with a status
 *   that says what happened to them;
 * - no process left: every process the kit reported starting (the agent, each relay, each
 *   server) is gone from /proc once the kit closed, checked by pid and start time.
 *
 * Cells: an MCP server that crashes mid-call, hangs, or fails to start; the agent killed
 * mid-turn, or hanging (stopped); the provider answering 401 (echoing the planted key),
 * 429, 500, cutting its stream, or hanging; eight sessions at once with ground truth (the
 * server's own call log equals the kit's records, turn by turn); the planted-secret scan.
 * Jest-level faults (Jest's timeout, SIGINT, SIGTERM, a killed worker) need a Jest of their
 * own: in-band-signals.test.ts runs SIGINT and SIGTERM on every agent.
 *
 * With `{ warm: true }` (agent-matrix-<agent>-warm.test.ts) every cell runs on the agent's
 * warm pool, by the agent's default (no `warm` option: every agent here is warm by default,
 * so these files are also the proof of that default, end to end), whose agent process
 * serves one session after another and outlives the kit. The orphan check then splits:
 * what the session started (its relays and servers) is gone when its kit closed, by pid
 * and start time; the warm agents are as many as the pool may keep (one per key for a
 * shared pool, one per session at once for an exclusive one), every relay of a cell was
 * started under a warm agent (no silent cold start), concurrent sessions of an exclusive
 * pool never share one, and once the pools stop (`stopWarmPools`, as the preset does at the
 * file's end) no warm agent is left.
 *
 * `afterAll` prints the agent's figures: cells passed and the time of each.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync, existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import {
  ExecutionOutcome,
  MCPTestKit,
  TurnOutcome,
  type ModelProvider,
  type StdioServer,
} from "jest-m3";
import { processStartTime, stillSame, stopWarmPools } from "@jest-m3/core/runner";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";
import { procStat } from "@jest-m3/test-support";

/** The repository root. */
const REPO = join(__dirname, "..", "..", "..", "..");
const FAULT_SERVER = join(REPO, "packages", "test-support", "fixtures", "fault-server.mjs");
const SHIPPING_SERVER = join(REPO, "examples", "shipping", "shipping-server.mjs");
/** The shipping server plus shipping_wait, which logs its call and then waits. */
const SLOW_SHIPPING_SERVER = join(__dirname, "..", "fixtures", "slow-shipping-server.mjs");

/** The planted credential: handed to the agent as its provider key, echoed by a 401. */
const PLANTED_KEY = "sk-m3-matrix-planted-5e1f07c9";
const PLANTED_VARIABLE = "M3_MATRIX_PLANTED_KEY";

/** A provider fault of the matrix. */
type ProviderFault = "401" | "429" | "500" | "cut";

/** An agent of the matrix: its harness, a model name, the dialect it speaks, how it meets faults. */
export interface MatrixAgent {
  readonly harness: string;
  readonly model: string;
  readonly dialect: "responses" | "anthropic-messages" | "gemini" | "chat-completions";
  /**
   * Per provider fault, what the agent does: fail the turn with error words matching the
   * expression, or `"retries"` (it asks again on its own, and the turn completes on the
   * model's next answer).
   */
  readonly faults: Readonly<Record<ProviderFault, RegExp | "retries">>;
  /**
   * Files the agent itself writes into its (the kit's temporary) home when a request fails,
   * quoting the provider's answer as it came: Codex's log database, Gemini CLI's
   * `gemini-client-error-*.json`, OpenCode's log and its session database.
   */
  readonly ownErrorReports?: RegExp;
  /**
   * What an MCP server that exits at start does to the session: `open()` fails with
   * `M3_HARNESS_START`, or the agent goes on without the server and the turn completes.
   */
  readonly serverStartFailure: "open fails" | "turn completes";
  /**
   * How the agent's warm pool shares a process: `shared` (one process per key serves every
   * session at once, each on its own thread or ACP session), `exclusive` (one session at a
   * time: a second session at once gets a process of its own).
   */
  readonly warmLease: "shared" | "exclusive";
  /** A shared pool's limit of sessions on one process at once (the profile's; default none). */
  readonly warmSessions?: number;
  /**
   * A shared pool keys its processes on the session's server names (OpenCode's permission
   * map names them): the matrix's "faulty" server set keeps a process of its own beside the
   * "shipping" set's.
   */
  readonly warmKeyNamesServers?: boolean;
  /**
   * A cut stream may hang the turn instead of failing it: the agent may take the cut
   * (ECONNRESET) for a lost network and wait for it to come back, which it never does while
   * the provider answers. The cut cell then accepts either outcome: the turn fails in the
   * `faults.cut` words, or it runs out of its (short) budget with `M3_TURN_TIMEOUT` in the
   * kit's words; either way the journal shows the cut, and the next turn ("echo once")
   * completes: in the same session after a failure, in a new one on the same pool after a
   * timeout (a timed-out turn ends its session). Kilo Code only.
   */
  readonly cutMayHang?: boolean;
}

/** How a file runs the matrix. */
export interface MatrixOptions {
  /** Every session on the agent's warm pool (its default: no `warm` option), else `warm: false`. */
  readonly warm: boolean;
  /** Only the cells whose title matches (default: every cell). */
  readonly cells?: RegExp;
  /**
   * Sessions the load cell opens at once (default 8). A cold file proves one agent process
   * per session under load with fewer: each is a whole agent start on a two-core machine.
   */
  readonly loadSessions?: number;
}

/** Every agent the project has, and what each does with a provider's faults (observed). */
export const MATRIX_AGENTS: Record<string, MatrixAgent> = {
  codex: {
    harness: "codex",
    model: "scripted",
    dialect: "responses",
    faults: { "401": /401/, "429": /429/, "500": /internalServerError/, cut: /stream/i },
    // Its log database (seen in the warm pool's home; a cold home may not have flushed it yet).
    ownErrorReports: /\/codex-home\/logs_\d+\.sqlite(-wal)?$/,
    serverStartFailure: "open fails",
    warmLease: "shared",
  },
  "claude-code": {
    harness: "claude-code",
    model: "claude-sonnet-5-5",
    dialect: "anthropic-messages",
    faults: { "401": /401/, "429": /429/, "500": /500/, cut: "retries" },
    serverStartFailure: "open fails",
    warmLease: "exclusive",
  },
  gemini: {
    harness: "gemini",
    model: "gemini-scripted",
    dialect: "gemini",
    faults: { "401": /401/, "429": "retries", "500": "retries", cut: /terminated/ },
    ownErrorReports: /\/tmp\/gemini-client-error-[^/]+\.json$/,
    serverStartFailure: "open fails",
    warmLease: "shared",
  },
  opencode: {
    harness: "opencode",
    model: "scripted-model",
    dialect: "chat-completions",
    faults: { "401": /invalid key/, "429": "retries", "500": "retries", cut: "retries" },
    ownErrorReports: /\/data\/opencode\/(log\/opencode\.log|opencode\.db(-wal)?)$/,
    serverStartFailure: "open fails",
    warmLease: "shared",
    warmSessions: 3,
    warmKeyNamesServers: true,
  },
  pi: {
    harness: "pi",
    model: "scripted-model",
    dialect: "responses",
    // No retries (Pi's and its SDK's are off): each fault fails the turn in Pi's words.
    faults: {
      "401": /API error \(401\)/,
      "429": /API error \(429\)/,
      "500": /API error \(500\)/,
      cut: /stream ended before a terminal response event/,
    },
    serverStartFailure: "open fails",
    warmLease: "exclusive",
  },
  "qwen-code": {
    harness: "qwen-code",
    model: "scripted-model",
    dialect: "chat-completions",
    faults: { "401": /401 invalid key/, "429": "retries", "500": "retries", cut: "retries" },
    // The chat history it keeps per project, which records the failed request's answer.
    ownErrorReports: /\/home\/\.qwen\/projects\/[^/]+\/chats\/[^/]+\.jsonl$/,
    serverStartFailure: "open fails",
    warmLease: "shared",
  },
  kilo: {
    harness: "kilo",
    model: "scripted-model",
    dialect: "chat-completions",
    // OpenCode's fork: it retries a 429 and a 500, but fails a cut stream (OpenCode retries).
    faults: {
      "401": /invalid key/,
      "429": "retries",
      "500": "retries",
      cut: /Connection reset by server/,
    },
    // After a cut Kilo Code sometimes decides it is offline ("waiting for network", "session
    // offline" in its own log) and waits for a network check that never says offline, so the
    // turn runs to its timeout (1 in 24 to 3 in 12 turns on one warm process; none cold).
    // That is Kilo Code's behaviour, so its cut cell accepts a failure or a timeout.
    cutMayHang: true,
    // Its log (named as OpenCode's, in Kilo Code's data folder) and its session database,
    // which record the failed request's answer, as OpenCode's do.
    ownErrorReports: /\/data\/kilo\/(log\/opencode\.log|kilo\.db(-wal)?)$/,
    serverStartFailure: "open fails",
    warmLease: "shared",
    // OpenCode's permission map names the servers, so the key does too.
    warmKeyNamesServers: true,
  },
};

/**
 * How many processes a shared warm pool runs for the load cell's sessions opened at once:
 * one, or as many as its limit of sessions per process makes (8 at 3 a process: 3).
 */
function sharedProcesses(agentCase: MatrixAgent, sessions: number): number {
  return Math.ceil(sessions / (agentCase.warmSessions ?? sessions));
}

/** The turn budget of cells that end by a timeout: short, so the matrix stays quick. */
const TIMEOUT_MS = 6_000;
/** How the kit words a turn that ran out of its budget. */
const TIMED_OUT_WORDS = expect.stringContaining(
  `The turn did not finish within ${TIMEOUT_MS} ms; the harness was interrupted`,
);
/** Sessions of the load cell, all open at once. */
const LOAD_SESSIONS = 8;

const faultServer = (...args: string[]): StdioServer => ({
  name: "faulty",
  command: process.execPath,
  args: [FAULT_SERVER, ...args],
});

const shippingServer = (callLog: string): StdioServer => ({
  name: "shipping",
  command: process.execPath,
  args: [SHIPPING_SERVER],
  env: { SHIPPING_CALL_LOG: callLog },
});

const slowShippingServer = (callLog: string): StdioServer => ({
  name: "shipping",
  command: process.execPath,
  args: [SLOW_SHIPPING_SERVER],
  env: { SHIPPING_CALL_LOG: callLog },
});

/** The lines a server appended to its call log. */
function callLog(file: string): { tool: string; arguments: Record<string, unknown> }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { tool: string; arguments: Record<string, unknown> });
}

/** Files under `dir` whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) continue;
    if (stat.isDirectory()) found.push(...filesContaining(path, needle));
    else if (stat.isFile() && readFileSync(path).includes(needle)) found.push(path);
  }
  return found;
}

// Some agents send the user's words with context of their own in the same message, on
// lines before them (Qwen Code's reminders, on the first turn) or after them (Kilo Code's
// environment details): the rules and the journal look for the words on lines of their own.
const OWN_LINE_START = "(?:^|\\n)";
const OWN_LINE_END = "(?:\\n|$)";

/** True when `user` is `prompt`, alone or on its own lines beside the agent's context. */
function saidAlone(user: string | undefined, prompt: string): boolean {
  if (user === undefined) return false;
  return user === prompt || user.endsWith(`\n${prompt}`) || user.startsWith(`${prompt}\n`);
}

const SCRIPT = {
  rules: [
    {
      name: "crash",
      when: { user: "crash the server" },
      steps: [{ call: "faulty:crash", args: {} }, { reply: "after the crash" }],
    },
    {
      name: "server hang",
      when: { user: "hang the server" },
      steps: [{ call: "faulty:sleep", args: { ms: 600_000 } }, { reply: "slept" }],
    },
    {
      name: "wait",
      when: { user: "wait on shipping" },
      steps: [{ call: "shipping:shipping_wait", args: { seconds: 600 } }, { reply: "waited" }],
    },
    {
      name: "echo",
      when: { user: "echo once" },
      steps: [{ call: "faulty:echo", args: { text: "hi" } }, { reply: "echoed" }],
    },
    {
      name: "401 for the scan",
      when: { user: "scan for the key" },
      steps: [{ http: 401, message: `invalid key: Bearer ${PLANTED_KEY}` }],
    },
    {
      name: "401",
      when: { user: "unauthorized" },
      steps: [{ http: 401, message: `invalid key: Bearer ${PLANTED_KEY}` }],
    },
    { name: "429", when: { user: "rate limit me" }, steps: [{ http: 429, message: "slow down" }] },
    { name: "500", when: { user: "outage" }, steps: [{ http: 500, message: "scripted outage" }] },
    { name: "cut", when: { user: "cut the stream" }, steps: [{ cut: true as const }] },
    { name: "model hang", when: { user: "hang the model" }, steps: [{ hang: true as const }] },
    {
      name: "quote one",
      when: { user: { regex: `${OWN_LINE_START}load: one quote for (\\d+) kg${OWN_LINE_END}` } },
      steps: [
        {
          call: "shipping:shipping_quote",
          args: { weight_kg: "{{match.1 | number}}", zone: "local" },
        },
        { reply: "one quote" },
      ],
    },
    {
      name: "quote two",
      when: { user: { regex: `${OWN_LINE_START}load: two quotes for (\\d+) kg${OWN_LINE_END}` } },
      steps: [
        {
          call: "shipping:shipping_quote",
          args: { weight_kg: "{{match.1 | number}}", zone: "regional" },
        },
        {
          call: "shipping:shipping_quote",
          args: { weight_kg: "{{match.1 | number}}", zone: "international" },
        },
        { reply: "two quotes" },
      ],
    },
  ],
  fallback: [{ reply: "fallback reply" }],
};

interface CellFigure {
  readonly cell: string;
  readonly passed: boolean;
  readonly ms: number;
  /** What the cell saw, where agents differ (printed with the figures). */
  readonly note?: string;
}

/** A process a cell saw start; a relay also names the agent process it runs under. */
interface StartedProcess {
  readonly pid: number;
  readonly label: string;
  readonly startTime: string | null;
  /** For a relay: its nearest ancestor among the agent processes (by /proc's parent links). */
  readonly servedBy?: number;
  /** For a warm agent: the cell it started in. */
  readonly cell?: string;
}

/** A warm pool's agent process, as its pool labels it ("codex app-server (warm)", ...). */
const isWarmAgent = (label: string): boolean => /\bwarm\)$/.test(label);
const isRelay = (label: string): boolean => label.startsWith("relay for ");
/** The agent's own process (the kit spawned it; relays and servers are its descendants). */
const isAgent = (label: string): boolean => !isRelay(label) && !label.startsWith("server ");

/** The nearest ancestor of `pid` among `agents`, following /proc's parent links. */
function ancestorIn(pid: number, agents: ReadonlySet<number>): number | undefined {
  let parent = procStat(pid)?.ppid;
  for (let depth = 0; parent !== undefined && parent > 1 && depth < 32; depth++) {
    if (agents.has(parent)) return parent;
    parent = procStat(parent)?.ppid;
  }
  return undefined;
}

/** A warm agent's folder (its home and cwd are in it): its cwd, or the cwd's parent. */
function warmFolder(pid: number): string {
  const cwd = readlinkSync(`/proc/${pid}/cwd`);
  return basename(cwd) === "cwd" ? dirname(cwd) : cwd;
}

/** The relay pids a session's trace names ("relay pid N, server pid M" when each connected). */
function relayPids(events: readonly { kind: string; detail: string }[]): number[] {
  return events
    .filter((event) => event.kind === "connected")
    .map((event) => Number(/relay pid (\d+)/.exec(event.detail)?.[1]))
    .filter((pid) => Number.isInteger(pid));
}

/**
 * Declares the matrix's cells for one agent, its sessions cold (`warm: false`, one agent
 * process per session, owned by the kit) or on the warm pool (`warm: true`).
 */
export function describeAgentMatrix(
  name: keyof typeof MATRIX_AGENTS,
  { warm, cells, loadSessions = LOAD_SESSIONS }: MatrixOptions = { warm: false },
): void {
  const agentCase = MATRIX_AGENTS[name]!;
  const label = warm ? `${name} (warm)` : name;
  let model: ScriptedModel;
  let kit: MCPTestKit;
  let stopObserving: () => void = () => undefined;
  /** Every process the cell's kit reported starting, with its start time (warm agents aside). */
  let started: StartedProcess[] = [];
  /** Every warm agent process the file saw start (they outlive the cells' kits). */
  const warmAgents = new Map<number, StartedProcess>();
  const figures: CellFigure[] = [];
  let note: string | undefined;
  let currentCell = "";

  const provider = (): ModelProvider => ({
    ...model.providerFor(agentCase.dialect),
    envKey: "M3_MATRIX_API_KEY",
  });
  const agent = () =>
    kit.agents([
      {
        harness: agentCase.harness,
        models: [agentCase.model],
        provider: provider(),
        credentialEnv: { M3_MATRIX_API_KEY: PLANTED_VARIABLE },
        // Warm is each agent's default: leaving the option out proves it.
        ...(warm ? {} : { options: { warm: false } }),
      },
    ])[0]!;
  /**
   * The agent process serving the cell's one session. Cold: the kit spawned exactly one.
   * Warm: the kit spawned none, and the session's relays all run under one warm agent.
   */
  const agentProcess = (): { pid: number } => {
    const own = kit.processes.filter((child) => isAgent(child.label));
    if (!warm) {
      expect(own).toHaveLength(1);
      return own[0]!;
    }
    expect(own).toEqual([]);
    const served = [
      ...new Set(started.filter((child) => isRelay(child.label)).map((child) => child.servedBy)),
    ];
    expect(served).toHaveLength(1);
    expect(warmAgents.has(served[0]!)).toBe(true);
    return { pid: served[0]! };
  };
  /** Waits until `condition` holds (every 50 ms), up to `ms`. */
  const until = async (condition: () => boolean, ms: number): Promise<boolean> => {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return true;
  };

  beforeAll(async () => {
    process.env[PLANTED_VARIABLE] = PLANTED_KEY;
    model = await startScriptedModel(SCRIPT);
  });
  afterAll(async () => {
    // The preset stops a file's pools when the file ends; stopping them here lets the file
    // check that no warm agent it saw outlives its pool.
    await stopWarmPools();
    const leftWarm = [...warmAgents.values()].filter((child) => stillSame(child));
    await model.close();
    delete process.env[PLANTED_VARIABLE];
    expect(leftWarm.map((child) => `${child.label} (pid ${child.pid})`)).toEqual([]);
    const passed = figures.filter((figure) => figure.passed).length;
    console.log(
      `reliability matrix, ${label}: ${passed}/${figures.length} cells passed\n` +
        figures
          .map(
            (figure) =>
              `  ${figure.passed ? "✓" : "✕"} ${figure.cell}: ${figure.ms} ms${figure.note ? ` (${figure.note})` : ""}`,
          )
          .join("\n"),
    );
  });
  beforeEach(() => {
    started = [];
    kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
    stopObserving = kit.runtime.observe({
      processStarted: (child) => {
        const seen = { pid: child.pid, label: child.label, startTime: processStartTime(child.pid) };
        if (isWarmAgent(child.label)) {
          warmAgents.set(child.pid, { ...seen, cell: currentCell });
          return;
        }
        if (!isRelay(child.label)) {
          started.push(seen);
          return;
        }
        // Announced while the relay runs: its parent links still lead to its agent.
        const agents = new Set([
          ...warmAgents.keys(),
          ...kit.processes.filter((own) => isAgent(own.label)).map((own) => own.pid),
        ]);
        started.push({ ...seen, servedBy: ancestorIn(child.pid, agents) });
      },
    });
  });
  afterEach(async () => {
    await kit.close();
    stopObserving();
    // The orphan check: nothing the kit started is still that process (zombies count as gone).
    // Warm, that is the session's relays and servers, while its agent stays for the next one.
    const left = started.filter((child) => stillSame(child));
    expect(left.map((child) => `${child.label} (pid ${child.pid})`)).toEqual([]);
    // Every relay ran under an agent of the mode the file asked for: a warm file's sessions
    // did not silently start cold, a cold file's did not land on a warm agent.
    const misplaced = started.filter(
      (child) =>
        isRelay(child.label) &&
        (child.servedBy === undefined || warmAgents.has(child.servedBy) !== warm),
    );
    expect(
      misplaced.map((child) => `${child.label} (pid ${child.pid}) under ${child.servedBy}`),
    ).toEqual([]);
    if (warm) {
      // No warm agent leaked: a shared pool keeps one process for the file's one key, an
      // exclusive pool at most one per session that ran at once, plus an idle one per key.
      const live = [...warmAgents.values()].filter((child) => stillSame(child));
      // (Claude Code's exclusive pool keys its processes on the servers' names too: the
      // matrix's two server sets, "faulty" and "shipping", may each keep an idle one.)
      const most =
        agentCase.warmLease === "shared"
          ? sharedProcesses(agentCase, loadSessions) + (agentCase.warmKeyNamesServers ? 1 : 0)
          : loadSessions + 1;
      expect({
        live: live.map((child) => `pid ${child.pid} (${child.label}), since ${child.cell}`),
      }).toEqual({ live: live.length <= most ? expect.anything() : `at most ${most}` });
    }
  });

  /** A cell: a test whose time and result go into the agent's figures. */
  const cell = (title: string, body: () => Promise<void>, timeoutMs = 90_000): void => {
    if (cells && !cells.test(title)) return;
    test(
      `${label}: ${title}`,
      async () => {
        const startedAt = Date.now();
        note = undefined;
        currentCell = title;
        try {
          await body();
          figures.push({ cell: title, passed: true, ms: Date.now() - startedAt, note });
        } catch (error) {
          figures.push({ cell: title, passed: false, ms: Date.now() - startedAt, note });
          throw error;
        }
      },
      timeoutMs,
    );
  };

  cell("an MCP server that crashes mid-call", async () => {
    const session = agent().session({ server: faultServer(), timeout: 60_000 });
    let turn;
    {
      await using open = await session.open();
      turn = await open.send("crash the server");
    }
    const crash = turn.toolCalls.find((call) => call.tool === "crash");
    expect(crash?.status).toBe("transport_error");
    const events = JSON.stringify(session.result.trace.events);
    expect(events).toContain("segfault in quote engine");
    expect(session.result.snapshot.lifecycle).toBe("finished");
    expect(turn.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
  });

  /** One turn of `prompt` on the fault server that must time out; the session and the turn. */
  const timedOutTurn = async (prompt: string) => {
    const session = agent().session({ server: faultServer(), timeout: 60_000 });
    let turn;
    {
      await using open = await session.open();
      turn = await open.send(prompt, { timeout: TIMEOUT_MS });
    }
    expect(turn.snapshot.outcome).toBe(TurnOutcome.TIMED_OUT);
    expect(turn.error).toMatchObject({ code: "M3_TURN_TIMEOUT", message: TIMED_OUT_WORDS });
    return { session, turn };
  };

  cell("an MCP server that hangs in a call: the turn times out, the call is kept", async () => {
    const { session, turn } = await timedOutTurn("hang the server");
    const sleep = turn.toolCalls.find((call) => call.tool === "sleep");
    expect(sleep?.arguments).toEqual({ ms: 600_000 });
    expect(["timed_out", "cancelled", "incomplete"]).toContain(sleep?.status);
    expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.TIMED_OUT);
  });

  cell("an MCP server that fails to start", async () => {
    const session = agent().session({
      server: faultServer("--exit-at-start", "3"),
      timeout: 60_000,
    });
    let outcome: string;
    let message: string;
    try {
      const open = await session.open();
      const turn = await open.send("echo once", { timeout: 30_000 });
      await open.close();
      outcome = `turn ${turn.snapshot.outcome}`;
      message = `${turn.error?.message ?? ""}\n${JSON.stringify(session.result.trace.events)}`;
    } catch (error) {
      outcome = `open failed (${(error as { code?: string }).code})`;
      message = (error as Error).message;
    }
    note = outcome;
    // Either way the server's own words (its stderr) say what went wrong.
    expect({ outcome, message }).toEqual({
      outcome:
        agentCase.serverStartFailure === "open fails"
          ? "open failed (M3_HARNESS_START)"
          : `turn ${TurnOutcome.COMPLETED}`,
      message: expect.stringContaining("cannot open database"),
    });
    expect(session.result.trace.toolCalls).toEqual([]);
  });

  /** Opens a session with the slow shipping server and starts a turn in shipping_wait. */
  const midCall = async (timeoutMs: number) => {
    const log = join(await kit.tempDir("m3-matrix-log-"), "calls.jsonl");
    const session = agent().session({ server: slowShippingServer(log), timeout: 60_000 });
    const open = await session.open();
    const harness = agentProcess();
    const turn = open.send("wait on shipping", { timeout: timeoutMs });
    // In the middle of the call: the server logged it and sleeps.
    const reached = await until(() => callLog(log).length > 0, 30_000);
    expect(reached).toBe(true);
    return { session, open, harness, turn, log };
  };

  cell("the agent killed (SIGKILL) in the middle of a tool call", async () => {
    const { session, open, harness, turn, log } = await midCall(60_000);
    process.kill(harness.pid, "SIGKILL");
    const result = await turn;
    await open.close();
    expect(result.snapshot.outcome).toBe(TurnOutcome.FAILED);
    expect(result.error?.message).toMatch(/SIGKILL/);
    expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.FAILED);
    // The call the server received is in the record, not finished.
    expect(callLog(log)).toEqual([{ tool: "shipping_wait", arguments: { seconds: 600 } }]);
    const wait = session.result.trace.toolCalls.find((call) => call.tool === "shipping_wait");
    expect(wait?.arguments).toEqual({ seconds: 600 });
    expect(wait?.status).not.toBe("success");
  });

  cell("the agent hanging (stopped with SIGSTOP) mid-call: the turn times out", async () => {
    const { session, open, harness, turn, log } = await midCall(TIMEOUT_MS);
    const stopped = { pid: harness.pid, startTime: processStartTime(harness.pid) };
    process.kill(harness.pid, "SIGSTOP");
    const result = await turn;
    await open.close();
    // The hung agent is gone once the close returns, warm or cold: no later session waits
    // on it, and it does not sit out a kill grace beside the next cell's agent.
    expect(stillSame(stopped)).toBe(false);
    expect(result.snapshot.outcome).toBe(TurnOutcome.TIMED_OUT);
    expect(result.error).toMatchObject({ code: "M3_TURN_TIMEOUT", message: TIMED_OUT_WORDS });
    expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.TIMED_OUT);
    expect(callLog(log)).toEqual([{ tool: "shipping_wait", arguments: { seconds: 600 } }]);
    const wait = session.result.trace.toolCalls.find((call) => call.tool === "shipping_wait");
    expect(wait?.status).not.toBe("success");
  });

  for (const [fault, prompt] of [
    ["401", "unauthorized"],
    ["429", "rate limit me"],
    ["500", "outage"],
    ["cut", "cut the stream"],
  ] as const) {
    const expected = agentCase.faults[fault];
    // The turn may also time out (see `cutMayHang`): on a short budget, so the cell stays quick.
    const mayHang = fault === "cut" && agentCase.cutMayHang === true;
    cell(
      `the provider answering ${fault === "cut" ? "with a cut stream" : `HTTP ${fault}`}: ${
        expected === "retries"
          ? "the agent retries"
          : mayHang
            ? "the turn fails naming it, or times out"
            : "the turn fails naming it"
      }; the session goes on`,
      async () => {
        // This attempt's requests only: a retried cell (CI retries once) finds the first
        // attempt's in the journal too.
        const since = model.journal.entries.length;
        const session = agent().session({ server: faultServer(), timeout: 60_000 });
        let turn;
        let after;
        let until = since;
        let timedOut = false;
        {
          await using open = await session.open();
          turn = await open.send(prompt, { timeout: mayHang ? TIMEOUT_MS : 30_000 });
          until = model.journal.entries.length;
          timedOut = mayHang && turn.snapshot.outcome === TurnOutcome.TIMED_OUT;
          if (!timedOut) after = await open.send("echo once", { timeout: 30_000 });
        }
        if (timedOut) {
          // The timed-out turn ended its session: the next turn goes in a new one, same pool.
          await using open = await agent()
            .session({ server: faultServer(), timeout: 60_000 })
            .open();
          after = await open.send("echo once", { timeout: 30_000 });
        }
        // The turn's requests, from the first that says the prompt: side requests (a title
        // for the chat, say) quote the prompt too, and are not the turn's; a retry may not
        // say the prompt again (Qwen Code asks to continue the cut answer instead).
        const own = model.journal.entries.slice(since, until).filter((entry) => !entry.side);
        const first = own.findIndex((entry) => saidAlone(entry.conversation?.user, prompt));
        const asked = first < 0 ? [] : own.slice(first).map((entry) => entry.decision.kind);
        // The model really answered with the fault first.
        expect(asked[0]).toBe(fault === "cut" ? "cut" : "http");
        if (expected === "retries") {
          // The agent asked again on its own; the model's next answer (its fallback) ended
          // the turn: the journal shows the fault, then the retry.
          expect(turn.snapshot.outcome).toBe(TurnOutcome.COMPLETED);
          // An agent that streams (OpenCode over ACP) may have shown the cut answer's first
          // words before it retried: the reply is then those words and the retry's answer.
          expect(turn.response?.text).toMatch(
            fault === "cut"
              ? /^(?:This response is cut before it completes)?fallback reply$/
              : /^fallback reply$/,
          );
          expect(asked.slice(0, 2)).toEqual([asked[0], "reply"]);
        } else if (timedOut) {
          note = "timed out";
          expect(turn.error).toMatchObject({ code: "M3_TURN_TIMEOUT", message: TIMED_OUT_WORDS });
          expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.TIMED_OUT);
        } else {
          if (mayHang) note = "failed";
          expect(turn.snapshot.outcome).toBe(TurnOutcome.FAILED);
          expect(turn.error).toMatchObject({
            code: "M3_TURN_FAILED",
            message: expect.stringMatching(expected),
          });
        }
        expect(JSON.stringify(turn)).not.toContain(PLANTED_KEY);
        // The session goes on: the next turn's call crosses the wire.
        expect(after?.toolCalls.map((call) => [call.tool, call.status, call.evidence])).toEqual([
          ["echo", "success", "both"],
        ]);
      },
    );
  }

  cell("the provider hanging: the turn times out", async () => {
    await timedOutTurn("hang the model");
  });

  cell(
    `${loadSessions} sessions at once, two turns each: the server's log equals the kit's records, turn by turn`,
    async () => {
      const logDir = await kit.tempDir("m3-matrix-load-");
      const runs = Array.from({ length: loadSessions }, async (_, index) => {
        const log = join(logDir, `calls-${index}.jsonl`);
        const session = agent().session({ server: shippingServer(log), timeout: 90_000 });
        const turns = [];
        {
          await using open = await session.open();
          turns.push(await open.send(`load: one quote for ${index + 1} kg`));
          turns.push(await open.send(`load: two quotes for ${index + 11} kg`));
        }
        return { session, turns, log };
      });
      const results = await Promise.all(runs);
      for (const { session, turns, log } of results) {
        expect(session.result.snapshot.outcome).toBe(ExecutionOutcome.COMPLETED);
        const received = callLog(log);
        const recorded = turns.map((turn) =>
          turn.toolCalls.map((call) => ({
            tool: call.tool,
            arguments: call.arguments,
            status: call.status,
          })),
        );
        // Ground truth: what the server received, in order, split by the turns' counts.
        const first = recorded[0]!.length;
        expect(recorded).toEqual([
          received.slice(0, first).map((call) => ({ ...call, status: "success" })),
          received.slice(first).map((call) => ({ ...call, status: "success" })),
        ]);
        expect(recorded.map((calls) => calls.length)).toEqual([1, 2]);
      }
      expect(new Set(results.map(({ session }) => session.result.snapshot.sessionId)).size).toBe(
        loadSessions,
      );
      // The agent process each session ran on, from its relays' parent links.
      const servedBy = new Map(started.map((child) => [child.pid, child.servedBy]));
      const agents = results.map(({ session }) => {
        const under = new Set(
          relayPids(session.result.trace.events).map((pid) => servedBy.get(pid)),
        );
        expect(under.size).toBe(1);
        return [...under][0];
      });
      expect(agents).not.toContain(undefined);
      // Cold, and warm on an exclusive pool, a session is an isolation line: no agent process
      // served two of them. A shared pool serves them all on one process, each on its own
      // thread or ACP session.
      const distinct = new Set(agents).size;
      note = `${distinct} agent process(es) for ${loadSessions} sessions`;
      expect(distinct).toBe(
        warm && agentCase.warmLease === "shared"
          ? sharedProcesses(agentCase, loadSessions)
          : loadSessions,
      );
    },
    180_000,
  );

  cell(
    "the planted key, echoed by a 401, reaches no file the kit or the preset wrote, no trace and no error",
    async () => {
      const session = agent().session({ server: faultServer(), timeout: 60_000 });
      let failed;
      let copies: string[];
      let warmDirs: string[];
      {
        await using open = await session.open();
        failed = await open.send("scan for the key", { timeout: 30_000 });
        const dirs = (kit as unknown as { tempDirs: string[] }).tempDirs;
        expect(dirs.length).toBeGreaterThanOrEqual(warm ? 1 : 2);
        // A warm agent's home is its pool's folder (the agent's cwd is in it), not the kit's.
        warmDirs = warm ? [warmFolder(agentProcess().pid)] : [];
        copies = [...dirs, ...warmDirs].flatMap((dir) => filesContaining(dir, PLANTED_KEY));
        // Only the agent's own error reports, in the kit's temporary folders (or the warm
        // pool's), may quote what the provider sent back; they go with the folders when the
        // kit closes (the pool stops).
        const allowed = agentCase.ownErrorReports;
        expect(copies.filter((file) => !(allowed && allowed.test(file)))).toEqual([]);
      }
      await kit.close();
      const inWarm = (file: string) => warmDirs.some((dir) => file.startsWith(`${dir}/`));
      expect(copies.filter((file) => !inWarm(file) && existsSync(file))).toEqual([]);
      if (warm) {
        await stopWarmPools();
        expect(copies.filter((file) => existsSync(file))).toEqual([]);
      }
      expect(failed.snapshot.outcome).toBe(TurnOutcome.FAILED);
      expect(failed.error?.message).toContain(`[redacted: ${PLANTED_VARIABLE}]`);
      expect(
        JSON.stringify([session.result, session.result.trace, failed.error?.message]),
      ).not.toContain(PLANTED_KEY);
      // The preset's run folder (transcripts of finished sessions) holds no copy either.
      const runDir = process.env.M3_RUN_DIR;
      if (runDir) expect(filesContaining(runDir, PLANTED_KEY)).toEqual([]);
    },
  );
}

/**
 * The cold matrix of an agent whose sessions are warm by default: only the cells about the
 * agent process a session owns (killed, stopped, one per session under load, its home in
 * the kit's folders), with four sessions at once (each a whole agent start), while its warm
 * file runs every cell with eight.
 */
export function describeColdMatrix(name: keyof typeof MATRIX_AGENTS): void {
  describeAgentMatrix(name, {
    warm: false,
    cells: /agent killed|agent hanging|sessions at once|planted key/,
    loadSessions: 4,
  });
}
