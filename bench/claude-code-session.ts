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
import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnvironment } from "@jest-m3/core/adapter-kit";
import claudeCodeHarness, { resolveClaudeExecutable } from "@jest-m3/harness-claude-code";
import type { ScriptedModel } from "@jest-m3/scripted-model";
import { stat } from "./process-tree";
import {
  bareRound,
  benchKitVsBare,
  JsonLinesChild,
  sessionRound,
  SHIPPING_EXPECTED,
  SHIPPING_SCRIPT,
  SHIPPING_SERVER,
  type KitVsBare,
  type SessionRound,
  type Side,
} from "./support";

const MODEL = "scripted-model";

/** The bare driver: stream-json over stdin, nothing else. */
class BareClaude extends JsonLinesChild {
  private nextId = 1;

  static async open(claude: string, model: ScriptedModel): Promise<BareClaude> {
    const root = await mkdtemp(join(tmpdir(), "m3-bench-claude-"));
    const options = {
      "--input-format": "stream-json",
      "--output-format": "stream-json",
      "--setting-sources": "",
      "--tools": "",
      "--allowedTools": "mcp__shipping__shipping_quote",
      "--model": MODEL,
    };
    const child = spawn(
      claude,
      [
        "--print",
        "--verbose",
        "--strict-mcp-config",
        "--no-session-persistence",
        ...Object.entries(options).flat(),
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
    const { command, args } = SHIPPING_SERVER;
    await bare.control({
      subtype: "mcp_set_servers",
      servers: { shipping: { type: "stdio", command, args } },
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

  async control(request: Record<string, unknown>): Promise<unknown> {
    const id = `bench-${this.nextId++}`;
    const answer = this.next(
      (m) =>
        m.type === "control_response" && (m.response as { request_id?: string }).request_id === id,
    );
    this.write({ type: "control_request", request_id: id, request });
    return ((await answer).response as { response?: unknown }).response;
  }

  /** One turn: the reply and the number of successful tool results. */
  async send(text: string): Promise<{ reply: string; calls: number }> {
    const from = this.records.length;
    const result = this.next((m) => m.type === "result");
    this.write({
      type: "user",
      message: { role: "user", content: text },
      parent_tool_use_id: null,
      session_id: "",
    });
    const end = await result;
    const calls = this.records
      .slice(from)
      .filter((m) => m.type === "user")
      .flatMap((m) => (m.message as { content: { type: string; is_error?: boolean }[] }).content)
      .filter((block) => block.type === "tool_result" && !block.is_error).length;
    return { reply: String(end.result), calls };
  }
}

/** Both sides on the `claude` binary. */
function claudeCode(claude: string): KitVsBare {
  return {
    prefix: "",
    script: SHIPPING_SCRIPT,
    expected: SHIPPING_EXPECTED,
    closeTimed: "to-close",
    bare: (model) => BareClaude.open(claude, model),
    kit: (model) => ({
      harness: claudeCodeHarness,
      agent: {
        harness: "claude-code",
        models: [MODEL],
        provider: model.providerFor("anthropic-messages"),
        // A cold session, as the bare driver's (Claude Code sessions are warm by default).
        options: { warm: false },
      },
      timeout: 60_000,
      pid: (kit) => kit.processes.find((child) => stat(child.pid)?.comm.startsWith("claude"))?.pid,
      process: "claude",
    }),
  };
}

/**
 * The benchmark: a warm-up round of the kit (its readiness; the page cache of the binary for
 * both sides), then `rounds` rounds in rotating order.
 */
export async function benchClaudeCodeSession({ rounds = 3 } = {}): Promise<void> {
  const lookup = resolveClaudeExecutable({}, {});
  if (!lookup.found) throw new Error(lookup.reason);
  const names = {
    title: "claude-code session",
    session: "Claude Code",
    process: "claude",
    verdict: "claude-code session",
    bare: "bare stream-json driver",
  };
  await benchKitVsBare(claudeCode(lookup.path), names, rounds);
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
export function claudeCodeRound(side: Side, claude: string): Promise<SessionRound> {
  return sessionRound(claudeCode(claude), side);
}

/** One round of the bare driver on `model` (for bench/warm-claude-code.ts). */
export function claudeCodeBareRound(model: ScriptedModel, claude: string): Promise<SessionRound> {
  return bareRound(claudeCode(claude), model);
}
