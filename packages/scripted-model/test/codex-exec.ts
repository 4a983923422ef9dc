/**
 * Runs the real Codex binary (`codex exec --json`) against a model provider, offline, in a
 * fresh CODEX_HOME and HOME, with the shipping MCP server from examples/shipping.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { ScriptedProvider } from "@jest-m3/scripted-model";

/** The repository root. */
export const REPO_ROOT = resolve(__dirname, "../../..");

/** The shipping MCP server script. */
export const SHIPPING_SERVER = join(REPO_ROOT, "examples/shipping/shipping-server.mjs");

const PLATFORM_PACKAGE = "@openai/codex-linux-x64";
const TRIPLE = "x86_64-unknown-linux-musl";

/**
 * The native Codex binary of the pinned `@openai/codex` dev dependency. Throws a clear error
 * (never skips) when it cannot be found.
 */
export function codexBinary(): string {
  const tried: string[] = [];
  const roots: string[] = [];
  const from = [REPO_ROOT, dirnameOf("@openai/codex/package.json")];
  for (const base of from) {
    if (base === undefined) continue;
    try {
      roots.push(dirname(require.resolve(`${PLATFORM_PACKAGE}/package.json`, { paths: [base] })));
    } catch {
      tried.push(`${PLATFORM_PACKAGE} from ${base}`);
    }
  }
  for (const root of roots) {
    const preferred = join(root, "vendor", TRIPLE, "bin", "codex");
    if (existsSync(preferred)) return preferred;
    tried.push(preferred);
    const vendor = join(root, "vendor");
    for (const triple of existsSync(vendor) ? readdirSync(vendor) : []) {
      const candidate = join(vendor, triple, "bin", "codex");
      if (existsSync(candidate)) return candidate;
      tried.push(candidate);
    }
  }
  throw new Error(
    `The Codex binary was not found (looked for ${tried.join("; ")}). These tests need the ` +
      `pinned devDependency @openai/codex with its linux-x64 binary: run \`npm ci\` at the ` +
      `repository root on linux x64 (platform here: ${process.platform}/${process.arch}).`,
  );
}

function dirnameOf(id: string): string | undefined {
  try {
    return dirname(require.resolve(id, { paths: [REPO_ROOT] }));
  } catch {
    return undefined;
  }
}

/** One JSON event of `codex exec --json`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- events are read loosely in tests
export type ExecEvent = Record<string, any>;

/** What a `codex exec` run produced. */
export interface ExecRun {
  exitCode: number | null;
  events: ExecEvent[];
  stderr: string;
  threadId: string | undefined;
  /** Texts of `agent_message` items. */
  agentMessages: string[];
  /** Completed `mcp_tool_call` items. */
  toolCalls: ExecEvent[];
  /** Messages of `turn.failed` events. */
  failures: string[];
}

/** A fresh CODEX_HOME + HOME + workspace, configured for `provider`. */
export class CodexHome {
  readonly root = mkdtempSync(join(tmpdir(), "m3-codex-"));
  readonly codexHome = join(this.root, "codex-home");
  readonly home = join(this.root, "home");
  readonly workspace = join(this.root, "workspace");

  constructor(provider: ScriptedProvider, options: { idleTimeoutMs?: number } = {}) {
    for (const dir of [this.codexHome, this.home, this.workspace]) mkdirSync(dir);
    this.configure(provider, options);
  }

  private configure(provider: ScriptedProvider, options: { idleTimeoutMs?: number }) {
    const q = (value: string) => JSON.stringify(value);
    const config = [
      `model_provider = ${q(provider.name)}`,
      `check_for_update_on_startup = false`,
      ``,
      `[features]`,
      `plugins = false`,
      `apps = false`,
      ``,
      `[analytics]`,
      `enabled = false`,
      ``,
      `[model_providers.${provider.name}]`,
      `name = ${q(provider.name)}`,
      `base_url = ${q(provider.baseUrl)}`,
      `wire_api = ${q(provider.wireApi)}`,
      `request_max_retries = 0`,
      `stream_max_retries = 0`,
      `stream_idle_timeout_ms = ${options.idleTimeoutMs ?? 20_000}`,
      ``,
      `[mcp_servers.shipping]`,
      `command = ${q(process.execPath)}`,
      `args = [${q(SHIPPING_SERVER)}]`,
      `cwd = ${q(REPO_ROOT)}`,
      `default_tools_approval_mode = "approve"`,
      // A loaded machine can take more than the default 10 s to start the server; Codex would
      // then send the turn without its tools.
      `startup_timeout_sec = 60`,
      ``,
    ].join("\n");
    writeFileSync(join(this.codexHome, "config.toml"), config);
  }

  /** Removes every temporary folder. */
  dispose(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/**
 * Runs `codex exec --json --skip-git-repo-check [resume THREAD] PROMPT` with model `model`.
 * The process (and its process group) is killed when it outlives `timeoutMs`.
 */
export async function codexExec(
  home: CodexHome,
  options: { model: string; prompt: string; resumeThread?: string; timeoutMs?: number },
): Promise<ExecRun> {
  const args = ["exec"];
  if (options.resumeThread !== undefined) args.push("resume");
  args.push("--json", "--skip-git-repo-check", "-m", options.model);
  if (options.resumeThread !== undefined) args.push(options.resumeThread);
  args.push(options.prompt);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home.home,
    CODEX_HOME: home.codexHome,
  };
  const child = spawn(codexBinary(), args, {
    cwd: home.workspace,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const timeoutMs = options.timeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    const exitCode = await new Promise<number | null>((resolvePromise, reject) => {
      child.once("error", reject);
      child.once("close", (code) => resolvePromise(code));
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `codex exec did not finish within ${timeoutMs} ms.\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr.slice(-4000)}`,
            ),
          ),
        timeoutMs,
      );
    });
    const events = stdout
      .split("\n")
      .filter((line) => line.trim().startsWith("{"))
      .map((line) => JSON.parse(line) as ExecEvent);
    const completed = events
      .filter((e) => e.type === "item.completed")
      .map((e) => e.item as ExecEvent);
    return {
      exitCode,
      events,
      stderr,
      threadId: events.find((e) => e.type === "thread.started")?.thread_id,
      agentMessages: completed.filter((i) => i.type === "agent_message").map((i) => String(i.text)),
      toolCalls: completed.filter((i) => i.type === "mcp_tool_call"),
      failures: events.filter((e) => e.type === "turn.failed").map((e) => String(e.error?.message)),
    };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // The process group is already gone.
      }
    }
  }
}
