import { elicitationRequest, toolDecision } from "@jest-m3/core/adapter-kit";
import type { ElicitationAnswer, HarnessLaunch } from "@jest-m3/core/harness";
import type { ResolvedClaudeCodeOptions } from "./options.js";
import type {
  CanUseToolRequest,
  ElicitationControlRequest,
  Json,
  PermissionAnswer,
} from "./protocol.js";
import { mcpToolName } from "./reported-calls.js";

/**
 * An MCP server's elicitation, which Claude Code in stream-json mode asks its SDK host
 * (control request `elicitation`). The session's plan answers; without one, decline.
 */
export async function answerElicitation(
  launch: HarnessLaunch,
  ask: ElicitationControlRequest,
): Promise<Json> {
  const responder = launch.elicitation;
  let answer: ElicitationAnswer = { action: "decline" };
  if (responder) {
    ({ answer } = await responder.answer(
      elicitationRequest({
        server: ask.mcp_server_name,
        mode: ask.mode,
        message: ask.message,
        requestedSchema: ask.requested_schema,
        url: ask.url,
        elicitationId: ask.elicitation_id,
      }),
    ));
  } else {
    launch.record({
      kind: "approval",
      detail: `declined an elicitation from MCP server ${ask.mcp_server_name}: the session has no elicitation plan`,
    });
  }
  return answer.action === "accept" && answer.content !== undefined
    ? { action: "accept", content: answer.content as unknown as Json }
    : { action: answer.action };
}

/**
 * Claude Code's permission prompt (`can_use_tool`): an MCP tool from the session's
 * allow-list, a built-in tool from the selection's options, anything else denied.
 */
export function permission(
  launch: HarnessLaunch,
  options: ResolvedClaudeCodeOptions,
  servers: readonly string[],
  ask: CanUseToolRequest,
): PermissionAnswer {
  const name = mcpToolName(ask.tool_name, servers);
  if (name !== undefined) {
    const decision = toolDecision(launch.toolPolicy, name.server, name.tool);
    launch.record({ kind: "approval", detail: decision.detail });
    return decision.allowed
      ? { behavior: "allow", updatedInput: ask.input }
      : {
          behavior: "deny",
          message: `${name.server}:${name.tool} is not in the test's tool allow-list`,
        };
  }
  const builtin = options.builtinTools;
  if (builtin === "default" || builtin.includes(ask.tool_name)) {
    launch.record({
      kind: "approval",
      detail: `accepted ${ask.tool_name} (a built-in tool the selection's options enable)`,
    });
    return { behavior: "allow", updatedInput: ask.input };
  }
  launch.record({
    kind: "approval",
    detail: `declined ${ask.tool_name} (neither an allowed MCP tool nor an enabled built-in tool)`,
  });
  return { behavior: "deny", message: `${ask.tool_name} is not allowed in this test` };
}
