// A two-turn ACP session per agent (Gemini CLI, OpenCode) through the kit vs a bare ACP
// driver of the same binary: the official SDK's client() and nothing else. Both sides use
// the same binary, flags and settings (the profile's settings file, policy or config, in a
// fresh temporary HOME, XDG folders and TMPDIR), the same scripted model in the agent's
// dialect, the same shipping MCP server, the same prompts. The bare driver gives the agent
// the server directly in session/new, allows every permission request, prompts twice and
// stops the agent as the profile does (Gemini CLI: SIGTERM; OpenCode: close stdin).
//
// What the kit adds, and what this measures the price of: readiness (cached after the
// warm-up round), the wire capture (a stdio relay, a second Node process, in front of the
// server, and a flush at the end of each turn), the allow-list (the policy, the permission
// answers, recorded), the trace, correlation of wire and reported calls, per-turn results,
// and a process-group stop that waits until nothing of the session is left. Rounds alternate
// the order of the sides; the figures are medians.
//
// Close is timed until every process of the session is gone, on both sides (the kit's
// close() guarantees it; after Gemini CLI's SIGTERM its MCP server outlives it briefly).
//
// The driver, the rounds and the report are parameterised by agent (bench/acp-more-agents.ts
// runs them on Kilo Code and GitHub Copilot CLI): an agent gives its bare launch (arguments,
// variables, and the servers it takes in session/new) and its harness.
//
// Run on its own: `npx tsx bench/acp-session.ts [gemini] [opencode]` (after `npm run build`).
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import type {
  HarnessDefinition,
  ModelProvider,
  ProviderDialect,
  ToolPolicy,
} from "@jest-m3/core/harness";
import { childEnvironment, type FoundExecutable } from "@jest-m3/core/adapter-kit";
import {
  GEMINI_SETTINGS,
  geminiHarness,
  geminiPolicy,
  geminiProfile,
  loadAcpSdk,
  opencodeConfig,
  opencodeHarness,
  opencodePermissions,
  opencodeProfile,
  type AcpProfile,
} from "@jest-m3/harness-acp";
import type { ScriptedModel } from "@jest-m3/scripted-model";
import {
  benchKitVsBare,
  QUOTE_EXPECTED,
  QUOTE_SCRIPT,
  sessionRound,
  SHIPPING_SERVER,
  type KitVsBare,
  type SessionRound,
  type Side,
} from "./support";

const MODEL = "scripted-1";
/** An MCP server as a bare driver gives it in `session/new`. */
export interface BareServer {
  readonly name: string;
  readonly command: string;
  readonly args: string[];
  readonly env: [];
}

/** What an agent's bare launch gets: its fresh folders, variables, provider and executable. */
export interface BareSetup {
  /** The fresh folder (`home`, `config`, `data`, `cache`, `state`, `tmp`, `workspace`). */
  readonly root: string;
  /** The agent's environment so far (HOME, XDG folders, TMPDIR); the launch adds to it. */
  readonly env: Record<string, string>;
  readonly provider: ModelProvider;
  /** The allow-list: `shipping:shipping_quote`. */
  readonly policy: ToolPolicy;
  readonly executable: FoundExecutable;
}

/** An agent's bare launch: its arguments, and the servers it is given in `session/new`. */
export interface BareLaunch {
  readonly args: string[];
  readonly mcpServers: BareServer[];
}

/** One agent of an ACP session benchmark. */
export interface BenchAcpAgent {
  readonly name: string;
  readonly label: string;
  readonly dialect: ProviderDialect;
  readonly profile: AcpProfile;
  readonly harness: HarnessDefinition;
  /** The bare side's launch, with the same flags and settings as the profile's. */
  bare(setup: BareSetup): Promise<BareLaunch>;
}

/** The shipping server, given directly (no relay) in `session/new`. */
export const BARE_SERVER: BareServer = {
  name: "shipping",
  command: SHIPPING_SERVER.command,
  args: [...SHIPPING_SERVER.args!],
  env: [],
};

const AGENTS: readonly BenchAcpAgent[] = [
  {
    name: "gemini",
    label: "Gemini CLI",
    dialect: "gemini",
    profile: geminiProfile,
    harness: geminiHarness,
    async bare({ root, env, provider, policy }) {
      await mkdir(join(root, "home", ".gemini"));
      await writeFile(
        join(root, "home", ".gemini", "settings.json"),
        JSON.stringify(GEMINI_SETTINGS),
      );
      await writeFile(join(root, "policy.toml"), geminiPolicy(policy, ["shipping"], false));
      Object.assign(env, {
        GEMINI_CLI_TRUST_WORKSPACE: "true",
        GEMINI_CLI_NO_RELAUNCH: "true",
        GOOGLE_GEMINI_BASE_URL: provider.baseUrl,
        GEMINI_API_KEY: "bench-no-key",
      });
      return {
        args: ["--acp", "-m", MODEL, "--policy", join(root, "policy.toml")],
        mcpServers: [BARE_SERVER],
      };
    },
  },
  {
    name: "opencode",
    label: "OpenCode",
    dialect: "chat-completions",
    profile: opencodeProfile,
    harness: opencodeHarness,
    async bare({ root, env, provider, policy }) {
      const config = opencodeConfig(
        provider,
        MODEL,
        opencodePermissions(policy, ["shipping"], false),
      );
      await writeFile(join(root, "opencode.json"), JSON.stringify(config));
      Object.assign(env, {
        OPENCODE_CONFIG: join(root, "opencode.json"),
        OPENCODE_DISABLE_PROJECT_CONFIG: "true",
        OPENCODE_DISABLE_AUTOUPDATE: "true",
        OPENCODE_DISABLE_MODELS_FETCH: "true",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "true",
      });
      return { args: ["acp", "--pure"], mcpServers: [BARE_SERVER] };
    },
  },
];

/** The bare driver: the SDK's client() over the agent's stdio, nothing else. */
class BareAcp {
  private text = "";
  private calls = 0;
  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    private readonly root: string,
    private readonly agent: BenchAcpAgent,
    private readonly prompt: (text: string) => Promise<unknown>,
  ) {}

  static async open(agent: BenchAcpAgent, model: ScriptedModel): Promise<BareAcp> {
    const { client, methods, ndJsonStream } = await loadAcpSdk();
    const root = await mkdtemp(join(tmpdir(), `m3-bench-${agent.name}-`));
    const dirs = ["home", "config", "data", "cache", "state", "tmp", "workspace"];
    for (const dir of dirs) await mkdir(join(root, dir));
    const provider = model.providerFor(agent.dialect);
    const policy = new Map([["shipping", new Set(["shipping_quote"])]]);
    const env = childEnvironment({
      HOME: join(root, "home"),
      XDG_CONFIG_HOME: join(root, "config"),
      XDG_DATA_HOME: join(root, "data"),
      XDG_CACHE_HOME: join(root, "cache"),
      XDG_STATE_HOME: join(root, "state"),
      TMPDIR: join(root, "tmp"),
    });
    const options = agent.profile.resolveOptions({});
    const found = agent.profile.executable(
      { harness: agent.name, model: MODEL, name: agent.name, credentialEnv: {}, options: {} },
      {},
      options,
    );
    if (!found.found) throw new Error(found.reason);
    // An agent on another runtime (Qwen Code's script on Node 22) is started on it.
    const runtime = await agent.profile.runtime?.(found, {}, options);
    const lookup = runtime ? runtime.executable : found;
    if (!lookup.found) throw new Error(lookup.reason);
    const { args, mcpServers } = await agent.bare({
      root,
      env,
      provider,
      policy,
      executable: lookup,
    });
    const child = spawn(lookup.command, [...lookup.prefix, ...args], {
      cwd: join(root, "workspace"),
      env,
    });
    child.stderr.resume();
    const holder: { bare?: BareAcp } = {};
    const connection = client({ name: "bench" })
      .onRequest(methods.client.session.requestPermission, ({ params }) => {
        const allow = params.options.find((option) => option.kind === "allow_once");
        return { outcome: { outcome: "selected", optionId: allow!.optionId } };
      })
      .onNotification(methods.client.session.update, ({ params }) =>
        holder.bare?.onUpdate(params.update),
      )
      .connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as never));
    await connection.agent.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    const session: { sessionId: string } = await connection.agent.request(
      methods.agent.session.new,
      { cwd: join(root, "workspace"), mcpServers },
    );
    holder.bare = new BareAcp(child, root, agent, (text) =>
      connection.agent.request(methods.agent.session.prompt, {
        sessionId: session.sessionId,
        prompt: [{ type: "text", text }],
      }),
    );
    return holder.bare;
  }

  private onUpdate(update: { sessionUpdate: string; [key: string]: unknown }): void {
    if (update.sessionUpdate === "agent_message_chunk") {
      const content = update.content as { type: string; text?: string };
      if (content.type === "text") this.text += content.text ?? "";
    } else if (update.sessionUpdate === "tool_call_update" && update.status === "completed") {
      this.calls += 1;
    }
  }

  /** One turn: the reply and the number of completed tool calls. */
  async send(text: string): Promise<{ reply: string; calls: number }> {
    this.text = "";
    this.calls = 0;
    await this.prompt(text);
    return { reply: this.text, calls: this.calls };
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.on("exit", resolve));
    if (this.agent.profile.stop(this.agent.profile.resolveOptions({})) === "sigterm") {
      this.child.kill("SIGTERM");
    } else {
      this.child.stdin.end();
    }
    await exited;
    await rm(this.root, { recursive: true, force: true });
  }
}

/** Both sides of one agent. */
function acpAgent(agent: BenchAcpAgent): KitVsBare {
  return {
    prefix: `${agent.name} `,
    script: QUOTE_SCRIPT,
    expected: QUOTE_EXPECTED,
    // Closed means nothing of the session is left, as the kit's close() guarantees.
    closeTimed: "until-gone",
    bare: (model) => BareAcp.open(agent, model),
    kit: (model) => ({
      harness: agent.harness,
      agent: {
        harness: agent.name,
        models: [MODEL],
        provider: model.providerFor(agent.dialect),
        // A cold session, as the bare driver's (Gemini CLI's sessions are warm by default).
        options: { warm: false },
      },
      timeout: 120_000,
      pid: (kit) => kit.processes[0]?.pid,
      process: "agent",
    }),
  };
}

/** One round of one side for one agent (also for bench/memory.ts and bench/warm-acp.ts). */
export function acpRound(side: Side, agent: BenchAcpAgent): Promise<SessionRound> {
  return sessionRound(acpAgent(agent), side);
}

function benchAgent(agent: BenchAcpAgent, rounds: number, title: string): Promise<void> {
  const names = {
    title,
    session: agent.label,
    process: agent.label,
    verdict: `${title}, ${agent.label}`,
    bare: "bare ACP driver (SDK client)",
  };
  return benchKitVsBare(acpAgent(agent), names, rounds);
}

/**
 * An ACP session benchmark over `agents` (those named in `names`, all by default): per
 * agent, a warm-up round of the kit, then `rounds` rounds in alternating order. Every
 * round checks the replies, one successful quote per turn, and that every process of the
 * session is gone, by pid.
 */
export async function benchAcpAgents(
  title: string,
  agents: readonly BenchAcpAgent[],
  { rounds = 1, names = agents.map((agent) => agent.name) }: BenchAcpOptions = {},
): Promise<void> {
  for (const agent of agents.filter((one) => names.includes(one.name))) {
    await benchAgent(agent, rounds, title);
  }
  console.log(
    "  every round: replies checked (2 kg, then 3 kg), one successful quote per turn, every process gone by pid",
  );
}

/** How many rounds, and which agents by name. */
export interface BenchAcpOptions {
  readonly rounds?: number;
  readonly names?: readonly string[];
}

/** The benchmark on Gemini CLI and OpenCode. */
export function benchAcpSession({
  rounds,
  agents,
}: { rounds?: number; agents?: readonly string[] } = {}): Promise<void> {
  return benchAcpAgents("acp session", AGENTS, {
    ...(rounds !== undefined ? { rounds } : {}),
    ...(agents !== undefined ? { names: agents } : {}),
  });
}

if (require.main === module) {
  const agents = process.argv.slice(2);
  benchAcpSession(agents.length > 0 ? { agents } : {}).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}

export { AGENTS as ACP_AGENTS };
