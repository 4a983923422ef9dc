import { toolDecision } from "@jest-m3/core/adapter-kit";
import type { ToolPolicy } from "@jest-m3/core/harness";
import type {
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
} from "./protocol.js";
import { argumentsFromText, contentText } from "./reported-calls.js";
import type { ToolIdentity } from "./tool-names.js";

/** How the adapter answers one `session/request_permission`, and what it records. */
export interface PermissionAnswer {
  readonly response: RequestPermissionResponse;
  readonly allowed: boolean;
  /** The transcript's line, in every harness's approval wording. */
  readonly detail: string;
  /** The option picked, or null when none of the needed kind was offered (cancelled). */
  readonly optionId: string | null;
  /** The call's arguments as the request shows them, when it does. */
  readonly arguments: Readonly<Record<string, unknown>> | undefined;
}

/** The first option offered of the first kind of `kinds` that has one. */
const pick = (options: readonly PermissionOption[], kinds: readonly string[]) =>
  kinds.map((kind) => options.find((option) => option.kind === kind)).find(Boolean);

/**
 * The answer to a permission request: allowed once for an MCP tool of the session in its
 * allow-list (`identity`, from what the protocol says of the call), refused for anything
 * else, one of the agent's own tools included.
 */
export function answerPermission(
  request: RequestPermissionRequest,
  identity: ToolIdentity | undefined,
  policy: ToolPolicy,
): PermissionAnswer {
  const call = request.toolCall;
  const decision = identity
    ? toolDecision(policy, identity.server, identity.tool)
    : {
        allowed: false,
        detail: `declined "${call.title ?? call.toolCallId}" (not an MCP tool of the session; the harness allows only those)`,
      };
  const option = decision.allowed
    ? pick(request.options, ["allow_once", "allow_always"])
    : pick(request.options, ["reject_once", "reject_always"]);
  const input = call.rawInput;
  return {
    response: option
      ? { outcome: { outcome: "selected", optionId: option.optionId } }
      : { outcome: { outcome: "cancelled" } },
    allowed: decision.allowed,
    detail: `${decision.detail}${option ? "" : "; no such option was offered, so the request was cancelled"}`,
    optionId: option?.optionId ?? null,
    arguments:
      typeof input === "object" && input !== null && Object.keys(input).length > 0
        ? (input as Record<string, unknown>)
        : argumentsFromText(contentText(call.content ?? undefined)[0]),
  };
}
