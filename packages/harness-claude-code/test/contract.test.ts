/**
 * The contract with the installed Claude Code: every flag, control request and message
 * field the adapter relies on (PROTOCOL_SURFACE) is still there. It drives the binary
 * directly over stdio with the adapter's exact command line, so a Claude Code upgrade that
 * renames a flag, drops a control request or reshapes an event fails here, loudly, naming
 * what changed, instead of in a session.
 */
import { randomUUID } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { childEnvironment } from "@jest-m3/core/adapter-kit";
import { MCPTestKit } from "@jest-m3/core";
import {
  claudeArgs,
  PROTOCOL_SURFACE,
  readClaudeVersion,
  resolveClaudeCodeOptions,
  resolveClaudeExecutable,
  runIsolated,
  TESTED_CLAUDE_CODE_VERSION,
} from "@jest-m3/harness-claude-code";
import { ledgerRule, useScriptedModel } from "@jest-m3/test-support";
import { claudeLaunch, claudeSelection, ledgerServer } from "./support/claude";

jest.setTimeout(60_000);

type Message = { type: string; [key: string]: unknown };

const executable = (() => {
  const found = resolveClaudeExecutable({}, {});
  if (!found.found) throw new Error(found.reason);
  return found.path;
})();

function missingFields(message: Message | undefined, fields: readonly string[]): string[] {
  if (message === undefined) return ["(no such message)"];
  return fields.filter((field) => !(field in message));
}

describe("the Claude Code contract", () => {
  const model = useScriptedModel({
    rules: [
      ledgerRule(["record_entry", "read_ledger"], "Done."),
      { name: "hang", when: { user: "hang" }, steps: [{ hang: true }] },
    ],
  });
  const kit = new MCPTestKit({ env: {}, killGraceMs: 500 });
  afterAll(() => kit.close());

  test(`the installed binary is the tested version, ${TESTED_CLAUDE_CODE_VERSION}`, async () => {
    const probe = await readClaudeVersion(executable);
    expect(probe.ok && probe.version.text).toBe(TESTED_CLAUDE_CODE_VERSION);
  });

  test("--help documents every flag the adapter passes (--permission-prompt-tool is hidden: the session below proves it)", async () => {
    const help = await runIsolated(executable, ["--help"]);
    if (!help.ok) throw new Error(help.reason);
    const missing = PROTOCOL_SURFACE.flags.filter(
      (flag) => flag !== "--permission-prompt-tool" && !help.output.includes(flag),
    );
    expect(missing).toEqual([]);
    expect(help.output).toContain("stream-json");
  });

  test("one session over stdio with the adapter's command line: every control request and message field the adapter reads", async () => {
    const dir = await kit.tempDir("m3-claude-contract-");
    const { launch } = await claudeLaunch(
      kit,
      claudeSelection(model.providerFor("anthropic-messages")),
      [ledgerServer(join(dir, "ledger.jsonl"))],
      ["ledger:record_entry"],
    );
    const options = resolveClaudeCodeOptions({ exposeDisallowedTools: true });
    const args = claudeArgs(launch, options, randomUUID());
    // Every flag but --disallowedTools (only for a server denied as a whole) is passed here.
    for (const flag of PROTOCOL_SURFACE.flags.filter((flag) => flag !== "--disallowedTools")) {
      expect(args).toContain(flag);
    }
    await mkdir(join(dir, "home"));
    const child = kit.spawn({
      label: "claude (contract)",
      command: executable,
      args,
      env: childEnvironment({
        HOME: join(dir, "home"),
        CLAUDE_CONFIG_DIR: join(dir, "home", ".claude"),
        ANTHROPIC_BASE_URL: model.providerFor("anthropic-messages").baseUrl,
        ANTHROPIC_API_KEY: "jest-m3-no-key",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        CLAUDE_CODE_MAX_RETRIES: "0",
      }),
      cwd: launch.workspace,
    });
    const messages: Message[] = [];
    const waiters: { test: (message: Message) => boolean; resolve: (m: Message) => void }[] = [];
    createInterface({ input: child.child.stdout }).on("line", (line) => {
      const message = JSON.parse(line) as Message;
      messages.push(message);
      if (message.type === "control_request") {
        const request = message.request as { subtype: string; input: unknown };
        expect(PROTOCOL_SURFACE.hostRequests).toContain(request.subtype);
        child.child.stdin.write(
          JSON.stringify({
            type: "control_response",
            response: {
              subtype: "success",
              request_id: message.request_id,
              response: { behavior: "deny", message: "not in the allow-list" },
            },
          }) + "\n",
        );
      }
      for (const waiter of [...waiters]) {
        if (waiter.test(message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    });
    const next = (test: (message: Message) => boolean): Promise<Message> =>
      new Promise((resolve) => waiters.push({ test, resolve }));
    let id = 0;
    const control = async (request: Record<string, unknown>) => {
      const requestId = `contract-${++id}`;
      const answer = next(
        (m) =>
          m.type === "control_response" &&
          (m.response as { request_id?: string }).request_id === requestId,
      );
      child.child.stdin.write(
        JSON.stringify({ type: "control_request", request_id: requestId, request }) + "\n",
      );
      const response = (await answer).response as { subtype: string; response?: unknown };
      expect({ subtype: request.subtype, answer: response.subtype }).toEqual({
        subtype: request.subtype,
        answer: "success",
      });
      return response.response as Record<string, unknown>;
    };
    const send = (text: string) => {
      const result = next((m) => m.type === "result");
      child.child.stdin.write(
        JSON.stringify({
          type: "user",
          message: { role: "user", content: text },
          parent_tool_use_id: null,
          session_id: "",
        }) + "\n",
      );
      return result;
    };
    const exited = new Promise((resolve) => child.child.on("exit", resolve));
    const [set, status] = [
      await control({
        subtype: "mcp_set_servers",
        servers: Object.fromEntries(
          launch.servers.map((server) => [
            server.name,
            server.kind === "stdio"
              ? { type: "stdio", command: server.command, args: server.args, env: server.env }
              : { type: "http", url: server.url },
          ]),
        ),
      }),
      await control({ subtype: "mcp_status" }),
    ];
    expect(set).toEqual(expect.objectContaining({ added: ["ledger"], errors: {} }));
    expect(status.mcpServers).toEqual([
      expect.objectContaining({
        name: "ledger",
        status: "connected",
        tools: expect.arrayContaining([{ name: "read_ledger", annotations: expect.anything() }]),
      }),
    ]);
    await control({
      subtype: "apply_flag_settings",
      settings: { permissions: { deny: ["mcp__ledger__erase_ledger", "mcp__ledger__crash"] } },
    });

    const result = await send("ledger");
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    const assistant = messages.find((m) => m.type === "assistant" && "tool_use_meta" in m);
    const user = messages.find((m) => m.type === "user" && "tool_result_meta" in m);
    const permission = messages.find((m) => m.type === "control_request");
    expect({
      init: missingFields(init, PROTOCOL_SURFACE.messages.init),
      assistant: missingFields(assistant, PROTOCOL_SURFACE.messages.assistant),
      user: missingFields(user, PROTOCOL_SURFACE.messages.user),
      result: missingFields(result, PROTOCOL_SURFACE.messages.result),
    }).toEqual({ init: [], assistant: [], user: [], result: [] });
    expect([...(init?.tools as string[])].sort()).toEqual([
      "mcp__ledger__read_ledger",
      "mcp__ledger__record_entry",
    ]);
    expect((assistant?.tool_use_meta as unknown[])[0]).toEqual(
      expect.objectContaining({ server_display_name: "ledger", tool_name: "record_entry" }),
    );
    expect(permission?.request).toEqual(
      expect.objectContaining({
        subtype: "can_use_tool",
        tool_name: "mcp__ledger__read_ledger",
        tool_use_id: expect.any(String),
        input: {},
      }),
    );
    expect(result).toEqual(
      expect.objectContaining({
        subtype: "success",
        is_error: false,
        result: "Done.",
        permission_denials: [expect.objectContaining({ tool_name: "mcp__ledger__read_ledger" })],
      }),
    );

    const hanging = send("hang");
    await new Promise((resolve) => setTimeout(resolve, 500));
    await control({ subtype: "interrupt" });
    expect(await hanging).toEqual(
      expect.objectContaining({ is_error: true, subtype: "error_during_execution" }),
    );

    child.child.stdin.end();
    await exited;
  });
});
