// A small deterministic harness adapter for the session state-machine tests. It is not a
// stand-in for a real agent (the Codex adapter's tests run the real binary); it reads
// instructions from the prompt, one per line, and makes REAL MCP calls through the
// captured servers it is given, so wire evidence is real:
//   call <server>:<tool> <json args>     call a tool and report it
//   call-unreported <server>:<tool> <json>  call a tool without reporting it
//   report-only <server>:<tool> <json>   report a call that was never made
//   reply <text>                         the agent's answer
//   list <server>                        list the server's tools (as agents do at start)
//   fail <message>                       end the turn failed (harness stays alive)
//   hang                                 never finish (until interrupted)
//   die                                  the harness process dies mid-turn
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  defineHarness,
  type AdapterTurn,
  type Capabilities,
  type HarnessDefinition,
  type ReportedToolCall,
} from "../harness/contract.js";
import { monotonicNow } from "../evidence/clock.js";
import type { ManagedProcess } from "../processes/managed-process.js";
import { describeExit } from "../errors.js";
import { connectCaptured } from "./captured-client.js";

/** Options of {@link testHarness}. */
export interface TestHarnessOptions {
  /** Capabilities to report as unavailable, with their reasons. */
  readonly unavailable?: Readonly<Record<string, string>>;
  /** Called with every instruction line, for tests that need to observe the adapter. */
  readonly onOpen?: (process: ManagedProcess) => void;
}

/**
 * A deterministic harness named `test` for tests of sessions, matchers and reports: it
 * follows instructions in the prompt (`call server:tool {json}`, `reply text`, `fail`,
 * `hang`, `die`, ...) and makes real MCP calls through the captured servers, so the wire
 * evidence is real. Not a stand-in for a real agent.
 *
 * @example
 * ```ts
 * await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
 * const [agent] = kit.agents([{ harness: "test", models: ["m"] }]);
 * const result = await agent!.run('call shipping:shipping_quote {"weight_kg":2,"zone":"local"}', { server });
 * ```
 */
export function testHarness(options: TestHarnessOptions = {}): HarnessDefinition {
  return defineHarness({
    name: "test",
    async readiness() {
      const capability = (name: string) =>
        options.unavailable?.[name]
          ? { status: "unavailable" as const, reason: options.unavailable[name] }
          : { status: "ready" as const };
      const capabilities: Capabilities = {
        multiTurn: capability("multiTurn"),
        toolPolicy: capability("toolPolicy"),
        wireEvidence: capability("wireEvidence"),
        reportedEvidence: capability("reportedEvidence"),
        cancellation: capability("cancellation"),
        approvals: capability("approvals"),
        credentials: capability("credentials"),
      };
      return {
        ready: Object.values(capabilities).every((entry) => entry.status === "ready"),
        harness: { name: "test", version: "1.0.0", executable: process.execPath },
        capabilities,
      };
    },
    async open(launch) {
      // The "harness process": a real child, so death and stderr are real.
      const child = launch.spawn({
        label: "test-harness",
        command: process.execPath,
        args: ["-e", "process.stderr.write('test-harness: up\\n'); setInterval(() => {}, 1 << 30)"],
        env: launch.env,
      });
      await child.spawned;
      options.onOpen?.(child);
      const clients = new Map<string, Client>();
      for (const server of launch.servers) clients.set(server.name, await connectCaptured(server));
      let interrupt: (() => void) | undefined;
      return {
        id: `test-session-${child.pid}`,
        health: () =>
          child.exitInfo
            ? {
                alive: false,
                stderrTail: child.stderrTail(),
                exit: describeExit(child.exitInfo),
              }
            : { alive: true },
        interrupt: async () => interrupt?.(),
        async send(turn): Promise<AdapterTurn> {
          const toolCalls: ReportedToolCall[] = [];
          let text: string | null = null;
          for (const line of turn.text
            .split("\n")
            .map((entry) => entry.trim())
            .filter(Boolean)) {
            const [verb, target = "", ...rest] = line.split(" ");
            const [server = "", tool = ""] = target.split(":");
            const takesArgs = ["call", "call-unreported", "report-only"].includes(verb ?? "");
            const args =
              takesArgs && rest.length > 0
                ? (JSON.parse(rest.join(" ")) as Record<string, unknown>)
                : {};
            if (verb === "reply") text = line.slice("reply ".length);
            else if (verb === "list") {
              const client = clients.get(target);
              if (!client) throw new Error(`no server ${target}`);
              await client.listTools();
            } else if (verb === "fail")
              return {
                outcome: "failed",
                response: null,
                error: line.slice(5),
                toolCalls,
                events: [],
              };
            else if (verb === "hang") {
              await new Promise<void>((resolve) => {
                interrupt = resolve;
                turn.signal.addEventListener("abort", () => resolve());
              });
              return {
                outcome: "interrupted",
                response: null,
                error: "interrupted",
                toolCalls,
                events: [],
              };
            } else if (verb === "die") {
              process.kill(child.pid!, "SIGKILL");
              await child.exited;
              throw new Error("the harness connection closed");
            } else if (verb === "report-only") {
              toolCalls.push({
                server,
                tool,
                arguments: args,
                result: { content: [] },
                status: "success",
              });
            } else if (verb === "call" || verb === "call-unreported") {
              const client = clients.get(server);
              if (!client) throw new Error(`no server ${server}`);
              const startedAt = monotonicNow();
              const result = await client
                .callTool({ name: tool, arguments: args })
                .then((value) => ({ ok: true as const, value: value as Record<string, unknown> }))
                .catch((error: Error) => ({ ok: false as const, error }));
              if (verb === "call") {
                toolCalls.push({
                  server,
                  tool,
                  arguments: args,
                  result: result.ok
                    ? result.value
                    : { unavailable: true, reason: result.error.message },
                  status: result.ok
                    ? result.value.isError
                      ? "tool_error"
                      : "success"
                    : "policy_denied",
                  ...(result.ok ? {} : { error: result.error.message }),
                  startedAt,
                  endedAt: monotonicNow(),
                });
              }
            }
          }
          return {
            outcome: "completed",
            response: text === null ? null : { text },
            error: null,
            toolCalls,
            events: [],
          };
        },
        async close() {
          await Promise.all(
            [...clients.values()].map((client) => client.close().catch(() => undefined)),
          );
          await child.stop(500);
        },
      };
    },
  });
}
