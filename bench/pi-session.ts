// A two-turn Pi session through the kit vs a bare RPC driver of the same binary: the same
// Node, flags, bridge extension, scripted model (the Responses API), shipping MCP server and
// prompts. The bare driver writes models.json and settings.json into fresh temporary
// folders, spawns `pi --mode rpc` with the bridge pointed straight at the server, asks
// `get_state`, sends one `prompt` per turn and reads until `agent_settled`, then closes
// stdin. The kit adds readiness (cached after the warm-up), the wire capture (a stdio relay
// in front of the server), the allow-list, the trace, correlation and the per-turn results.
// Rounds rotate the order of the sides; the figures are medians.
//
// Run on its own: `npx tsx bench/pi-session.ts` (after `npm run build`).
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnvironment } from "@jest-m3/core/adapter-kit";
import piHarness, {
  BRIDGE_EXTENSION,
  findNode,
  modelsJson,
  piArgs,
  piPackageFacts,
  resolvePiExecutable,
  resolvePiOptions,
  settingsJson,
} from "@jest-m3/harness-pi";
import type { ScriptedModel } from "@jest-m3/scripted-model";
import {
  benchKitVsBare,
  JsonLinesChild,
  SHIPPING_EXPECTED,
  SHIPPING_SCRIPT,
  SHIPPING_SERVER,
  type KitVsBare,
} from "./support";

const MODEL = "scripted-model";

/** The bare driver: JSON lines over stdio, nothing else. */
class BarePi extends JsonLinesChild {
  static async open(node: string, pi: string, model: ScriptedModel): Promise<BarePi> {
    const root = await mkdtemp(join(tmpdir(), "m3-bench-pi-"));
    const agentDir = join(root, "agent");
    await mkdir(agentDir);
    const provider = model.providerFor("responses");
    const options = resolvePiOptions({});
    await writeFile(join(agentDir, "models.json"), JSON.stringify(modelsJson(provider, MODEL)));
    await writeFile(join(agentDir, "settings.json"), JSON.stringify(settingsJson(options)));
    const bridge = {
      servers: [{ kind: "stdio", ...SHIPPING_SERVER, env: {} }],
      allow: { shipping: null },
      statusFile: join(root, "status.json"),
      toolTimeoutMs: 60_000,
      startupTimeoutMs: 30_000,
    };
    const child = spawn(
      node,
      [pi, ...piArgs({ model: MODEL, provider }, options, BRIDGE_EXTENSION)],
      {
        cwd: root,
        env: childEnvironment({
          HOME: root,
          TMPDIR: root,
          PI_CODING_AGENT_DIR: agentDir,
          PI_OFFLINE: "1",
          PI_TELEMETRY: "0",
          PI_SKIP_VERSION_CHECK: "1",
          M3_PI_NO_KEY: "bench-no-key",
          M3_PI_BRIDGE: JSON.stringify(bridge),
        }),
      },
    );
    const bare = new BarePi(child, root);
    await bare.command({ type: "get_state" });
    return bare;
  }

  async command(command: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = `bench-${this.records.length}-${Math.random()}`;
    const answer = this.next((m) => m.type === "response" && m.id === id);
    this.write({ ...command, id });
    return answer;
  }

  /** One turn: the reply and the number of successful tool results. */
  async send(text: string): Promise<{ reply: string; calls: number }> {
    const from = this.records.length;
    const settled = this.next((m) => m.type === "agent_settled");
    await this.command({ type: "prompt", message: text });
    await settled;
    const turn = this.records.slice(from);
    const calls = turn.filter((m) => m.type === "tool_execution_end" && m.isError === false).length;
    const end = turn.filter((m) => m.type === "agent_end").at(-1) as
      { messages: { role: string; content: { type: string; text?: string }[] }[] } | undefined;
    const last = end?.messages.filter((message) => message.role === "assistant").at(-1);
    const reply = (last?.content ?? []).map((part) => part.text ?? "").join("");
    return { reply, calls };
  }
}

/** Both sides on Pi's script `pi`, run by `node`. */
function piAgent(node: string, pi: string): KitVsBare {
  return {
    prefix: "",
    script: SHIPPING_SCRIPT,
    expected: SHIPPING_EXPECTED,
    closeTimed: "to-close",
    bare: (model) => BarePi.open(node, pi, model),
    kit: (model) => ({
      harness: piHarness,
      // Cold, as the bare side: Pi sessions are warm by default.
      agent: {
        harness: "pi",
        models: [MODEL],
        provider: model.providerFor("responses"),
        options: { warm: false },
      },
      timeout: 60_000,
      pid: (kit) => kit.processes.find((child) => child.label === "pi")?.pid,
      process: "pi",
    }),
  };
}

/**
 * The benchmark: a warm-up round of the kit (its readiness; the page cache of the binary for
 * both sides), then `rounds` rounds in rotating order.
 */
export async function benchPiSession({ rounds = 3 } = {}): Promise<void> {
  const pi = resolvePiExecutable({}, {});
  if (!pi.found) throw new Error(pi.reason);
  const node = await findNode(piPackageFacts(pi.path).node, undefined, {});
  if (!node.found) throw new Error(node.reason);
  const names = {
    title: "pi session",
    session: "Pi",
    process: "Pi",
    verdict: "pi session",
    bare: "bare RPC driver",
  };
  await benchKitVsBare(piAgent(node.path, pi.path), names, rounds);
  console.log(
    `  every round: Node ${node.version.text} for Pi; replies checked (9 USD, then 15.5), one successful quote per turn, every process gone by pid`,
  );
}

if (require.main === module) {
  benchPiSession().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
