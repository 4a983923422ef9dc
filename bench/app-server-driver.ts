// The bare baseline of bench/session.ts: a small driver that speaks the `codex app-server`
// protocol (JSON lines on stdio, no "jsonrpc" field) by hand, with no jest-m3 code. It does
// the work the Codex adapter does for one session, the same way:
// - the same native binary, the same `app-server` flags (no update check, no plugins, apps
//   or analytics, no web search, shell/multi-agent/goals off);
// - the same isolation: a fresh temporary CODEX_HOME, HOME and workspace, and an
//   environment built from an allow-list of the parent's, never the whole environment;
// - the same thread: `thread/start` with approval policy on-request, a read-only sandbox,
//   an ephemeral thread, the model provider with retries 0, the MCP server with
//   `required = true`, its startup and tool timeouts and the allow-list as `enabled_tools`;
// - the same waits: every MCP server `ready` before the first turn, `turn/completed` per
//   turn; tool approvals answered from the allow-list; shutdown by closing stdin.
// What it leaves out is the kit: the MCP server is launched as is (no stdio relay in front
// of it, no wire capture channel, no turn windows or flushes), nothing is recorded (no
// trace, no approval log, no correlation of wire and reported calls), no readiness checks,
// no process-group stop.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** A stdio MCP server, launched exactly as given. */
export interface BareServer {
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
}

/** A Responses-compatible model endpoint (e.g. the scripted model's `provider`). */
export interface BareProvider {
  readonly name: string;
  readonly baseUrl: string;
  readonly wireApi: string;
}

export interface BareSessionOptions {
  /** The Codex native binary. */
  readonly codex: string;
  readonly model: string;
  readonly provider: BareProvider;
  readonly server: BareServer;
  /** The tools of `server` the agent may call (the allow-list). */
  readonly tools: readonly string[];
  /** How long any one step (start, a turn, the shutdown) may take. */
  readonly timeoutMs?: number;
}

/** One MCP tool call as Codex reported it (`item/completed`, type `mcpToolCall`). */
export interface BareToolCall {
  readonly server: string;
  readonly tool: string;
  readonly status: string;
  readonly arguments: unknown;
}

export interface BareTurn {
  readonly status: string;
  readonly reply: string | null;
  readonly toolCalls: readonly BareToolCall[];
}

type Message = Record<string, unknown>;

// What `packages/harness-codex` passes too; written out here, not imported (a bare driver
// shares no code with the kit), and checked equal by harness-codex's contract test.
export const APP_SERVER_ARGS = [
  "app-server",
  ...[
    "check_for_update_on_startup=false",
    "features.plugins=false",
    "features.apps=false",
    "analytics.enabled=false",
    'web_search="disabled"',
  ].flatMap((setting) => ["-c", setting]),
  ...["shell_tool", "multi_agent", "goals", "shell_snapshot"].flatMap((off) => ["--disable", off]),
];

/** The parent variables the child gets (the rest of the parent's environment stays out). */
const INHERITED = "PATH USER LOGNAME SHELL TERM LANG LC_ALL LC_CTYPE TMPDIR TZ".split(" ");

function object(value: unknown): Message {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Message)
    : {};
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`bare driver: ${what} took over ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** One `codex app-server` with one thread, driven by hand. */
export class BareAppServerSession {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve(m: Message): void; reject(e: Error): void }
  >();
  private readonly listeners = new Set<(method: string, params: Message) => void>();
  private readonly exited: Promise<void>;
  private exitCode: string | undefined;
  private stderr = "";
  private threadId = "";

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly root: string,
    private readonly options: BareSessionOptions,
  ) {
    child.stderr.on("data", (chunk: Buffer) => (this.stderr = (this.stderr + chunk).slice(-4000)));
    child.stdin.on("error", () => undefined);
    createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) =>
      this.receive(line),
    );
    this.exited = new Promise((resolve) =>
      child.once("close", (code, signal) => {
        this.exitCode = signal ?? String(code);
        for (const waiting of this.pending.values()) {
          waiting.reject(new Error(`codex app-server exited (${this.exitCode}): ${this.stderr}`));
        }
        this.pending.clear();
        resolve();
      }),
    );
  }

  /** The app-server's process id. */
  get pid(): number {
    return this.child.pid!;
  }

  /**
   * Starts the app-server in fresh homes, initializes it, starts the thread and waits until
   * the MCP server is ready.
   */
  static async open(options: BareSessionOptions): Promise<BareAppServerSession> {
    const root = await mkdtemp(join(tmpdir(), "bench-bare-"));
    const codexHome = join(root, "codex-home");
    const home = join(root, "home");
    const workspace = join(root, "workspace");
    await Promise.all([codexHome, home, workspace].map((dir) => mkdir(dir, { mode: 0o700 })));
    const env: Record<string, string> = { CODEX_HOME: codexHome, HOME: home };
    for (const key of INHERITED) {
      const value = process.env[key];
      if (value !== undefined) env[key] = value;
    }
    const child = spawn(options.codex, APP_SERVER_ARGS, { cwd: workspace, env, stdio: "pipe" });
    const session = new BareAppServerSession(child, root, options);
    const timeoutMs = options.timeoutMs ?? 60_000;
    try {
      const { server, provider } = options;
      const ready = session.serverReady(server.name);
      await withTimeout(
        (async () => {
          await session.request("initialize", {
            clientInfo: { name: "bench-bare", title: "bench-bare", version: "1" },
            capabilities: { experimentalApi: true },
          });
          session.write({ method: "initialized" });
          const started = await session.request("thread/start", {
            cwd: workspace,
            approvalPolicy: "on-request",
            sandbox: "read-only",
            model: options.model,
            modelProvider: provider.name,
            config: {
              mcp_servers: {
                [server.name]: {
                  command: server.command,
                  args: [...server.args],
                  env: {},
                  cwd: server.cwd,
                  required: true,
                  startup_timeout_sec: 30,
                  tool_timeout_sec: 300,
                  enabled_tools: [...options.tools],
                },
              },
              model_providers: {
                [provider.name]: {
                  name: provider.name,
                  base_url: provider.baseUrl,
                  wire_api: provider.wireApi,
                  request_max_retries: 0,
                  stream_max_retries: 0,
                },
              },
            },
            ephemeral: true,
          });
          session.threadId = String(object(started.thread).id ?? "");
          if (session.threadId === "") throw new Error("thread/start gave no thread id");
          await ready;
        })(),
        timeoutMs,
        "starting the session",
      );
      return session;
    } catch (error) {
      child.kill("SIGKILL");
      await session.exited;
      await rm(root, { recursive: true, force: true });
      throw error;
    }
  }

  /** One user turn: `turn/start` on the thread, then everything until `turn/completed`. */
  async send(text: string): Promise<BareTurn> {
    const toolCalls: BareToolCall[] = [];
    let reply: string | null = null;
    let turnId: string | undefined;
    let completed: { id: string; status: string; error: unknown } | undefined;
    let finish: (turn: BareTurn) => void = () => undefined;
    const done = new Promise<BareTurn>((resolve) => (finish = resolve));
    const check = (): void => {
      if (completed && completed.id === turnId) {
        if (completed.status !== "completed") {
          reply = `turn ${completed.status}: ${JSON.stringify(completed.error)}`;
        }
        finish({ status: completed.status, reply, toolCalls });
      }
    };
    const listener = (method: string, params: Message): void => {
      if (params.threadId !== undefined && params.threadId !== this.threadId) return;
      if (method === "item/completed") {
        const item = object(params.item);
        if (item.type === "agentMessage") reply = String(item.text);
        if (item.type === "mcpToolCall") {
          toolCalls.push({
            server: String(item.server),
            tool: String(item.tool),
            status: String(item.status),
            arguments: item.arguments,
          });
        }
      } else if (method === "turn/completed") {
        const turn = object(params.turn);
        completed = { id: String(turn.id), status: String(turn.status), error: turn.error };
        check();
      }
    };
    this.listeners.add(listener);
    try {
      const started = await this.request("turn/start", {
        threadId: this.threadId,
        input: [{ type: "text", text, text_elements: [] }],
      });
      turnId = String(object(started.turn).id);
      check();
      return await withTimeout(done, this.options.timeoutMs ?? 60_000, "a turn");
    } finally {
      this.listeners.delete(listener);
    }
  }

  /** Closes stdin (Codex exits and stops its MCP server) and removes the temporary homes. */
  async close(): Promise<void> {
    this.child.stdin.end();
    try {
      await withTimeout(this.exited, this.options.timeoutMs ?? 60_000, "the shutdown");
    } catch (error) {
      this.child.kill("SIGKILL");
      throw error;
    } finally {
      await rm(this.root, { recursive: true, force: true });
    }
  }

  private serverReady(name: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const listener = (method: string, params: Message): void => {
        if (method !== "mcpServer/startupStatus/updated" || params.name !== name) return;
        if (params.status === "ready") {
          this.listeners.delete(listener);
          resolve();
        } else if (params.status === "failed" || params.status === "cancelled") {
          this.listeners.delete(listener);
          reject(new Error(`MCP server ${name} ${String(params.status)}: ${String(params.error)}`));
        }
      };
      this.listeners.add(listener);
    });
  }

  private request(method: string, params: Message): Promise<Message> {
    if (this.exitCode !== undefined) {
      return Promise.reject(new Error(`codex app-server exited (${this.exitCode})`));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.write({ id, method, params });
    });
  }

  private write(message: Message): void {
    if (!this.child.stdin.writableEnded) this.child.stdin.write(JSON.stringify(message) + "\n");
  }

  private receive(line: string): void {
    if (line.trim() === "") return;
    let message: Message;
    try {
      message = object(JSON.parse(line));
    } catch {
      return; // not a protocol line
    }
    const { id, method } = message;
    const params = object(message.params);
    if (typeof method === "string" && id !== undefined) {
      this.write({ id, ...this.answer(method, params) });
    } else if (typeof method === "string") {
      for (const listener of [...this.listeners]) listener(method, params);
    } else if (typeof id === "number") {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (message.error !== undefined) {
        waiting?.reject(new Error(`${JSON.stringify(message.error)}`));
      } else {
        waiting?.resolve(object(message.result));
      }
    }
  }

  /** A request from Codex: tool approvals from the allow-list; nothing else is supported. */
  private answer(method: string, params: Message): Message {
    if (method === "mcpServer/elicitation/request") {
      const meta = object(params._meta);
      const allowed =
        meta.codex_approval_kind === "mcp_tool_call" &&
        params.serverName === this.options.server.name &&
        this.options.tools.includes(String(meta.tool_name));
      return { result: { action: allowed ? "accept" : "decline", content: null, _meta: null } };
    }
    return { error: { code: -32601, message: `the bare driver does not handle ${method}` } };
  }
}
