import { elicitationRequest, toolDecision } from "@jest-m3/core/adapter-kit";
import type { HarnessLaunch } from "@jest-m3/core/harness";
import type {
  ElicitationRequestParams,
  ElicitationResponse,
  Json,
  ServerRequest,
} from "./protocol.js";
import type { TurnCollector } from "./turn.js";

/**
 * An MCP server's own elicitation, when the session has a plan: the plan answers, and
 * Codex passes the answer (with the form's content) back to the server. Codex's
 * tool-call approvals, which come by the same method, are never the plan's to answer.
 */
export function fromPlan(launch: HarnessLaunch, request: ServerRequest): Promise<Json> | undefined {
  const responder = launch.elicitation;
  if (!responder || request.method !== "mcpServer/elicitation/request") return undefined;
  const params = request.params as unknown as ElicitationRequestParams;
  if (params._meta?.codex_approval_kind !== undefined) return undefined;
  const ask = elicitationRequest({ ...params, server: params.serverName });
  const mode = ask.mode;
  return responder.answer(ask).then(({ answer }): Json => {
    const response: ElicitationResponse = {
      action: answer.action,
      content:
        answer.action === "accept" && mode === "form"
          ? ((answer.content ?? {}) as ElicitationResponse["content"])
          : null,
      _meta: null,
    };
    return { ...response };
  });
}

/**
 * Codex's approvals and questions, answered for a test: MCP tool calls from the session's
 * allow-list, commands and edits declined, no extra permissions, no questions answered.
 * Each answer goes into the session's record; a declined call into `turn` (its failure is
 * then a policy denial).
 */
export function answerRequest(
  launch: HarnessLaunch,
  turn: Pick<TurnCollector, "declinedCall"> | undefined,
  request: ServerRequest,
): Json {
  const record = (detail: string): void => launch.record({ kind: "approval", detail });
  switch (request.method) {
    case "mcpServer/elicitation/request":
      return {
        ...answerElicitation(launch, turn, request.params as unknown as ElicitationRequestParams),
      };
    case "item/commandExecution/requestApproval":
    case "item/fileChange/requestApproval":
      record(`declined ${request.method}: the harness runs no commands or edits for tests`);
      return { decision: "decline" };
    case "applyPatchApproval":
    case "execCommandApproval":
      record(`declined ${request.method}: the harness runs no commands or edits for tests`);
      return { decision: { denied: { rejection: "jest-m3 runs no commands or edits in tests" } } };
    case "item/permissions/requestApproval":
      record("granted no extra permissions (item/permissions/requestApproval)");
      return { permissions: {}, scope: "turn" };
    case "item/tool/requestUserInput":
      record("answered no questions (item/tool/requestUserInput): a test has no user");
      return { answers: {} };
    default:
      throw new Error(`jest-m3's Codex harness does not answer ${request.method}`);
  }
}

function answerElicitation(
  launch: HarnessLaunch,
  turn: Pick<TurnCollector, "declinedCall"> | undefined,
  params: ElicitationRequestParams,
): ElicitationResponse {
  const server = params.serverName;
  const tool = params._meta?.tool_name;
  if (params._meta?.codex_approval_kind === "mcp_tool_call" && typeof tool === "string") {
    const decision = toolDecision(launch.toolPolicy, server, tool);
    launch.record({ kind: "approval", detail: decision.detail });
    if (!decision.allowed) turn?.declinedCall(server, tool);
    return { action: decision.allowed ? "accept" : "decline", content: null, _meta: null };
  }
  launch.record({
    kind: "approval",
    detail: `declined an elicitation from MCP server ${server}: a test has no user to ask${params.message ? ` (${params.message})` : ""}`,
  });
  return { action: "decline", content: null, _meta: null };
}
