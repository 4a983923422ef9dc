/**
 * Deciding how the scripted model answers one request: which rule and step apply, what the
 * step produces given the tools the request offers, and what to say when nothing fits.
 */
import {
  offeredMcpTools,
  offeredNames,
  scriptedCallId,
  toolExposure,
  type ReadRequest,
} from "./conversation";
import type {
  CompiledCall,
  CompiledRule,
  CompiledScript,
  CompiledStep,
  CompiledTextMatcher,
  Conversation,
  JsonObject,
  JsonValueTemplate,
  ScriptedUsage,
  StepContext,
} from "./script";
import { describe, isPlainObject } from "./script";
import type { SidePurpose } from "./dialects/names";

/** A tool call the scripted model makes. */
export interface DecidedCall {
  /** The script's reference, `server:tool`. */
  ref: string;
  /** The server part of `ref`. */
  server: string;
  /** The tool part of `ref`. */
  tool: string;
  /** The call id sent to the agent; its `function_call_output` answers to it. */
  callId: string;
  /** The namespace the call carries (`mcp__shipping`), or `null` for a flat function name. */
  namespace: string | null;
  /** The function name as the request offers it. */
  name: string;
  /** The arguments sent (JSON-encoded on the wire). */
  arguments: unknown;
}

/** Names the rule and step a decision came from. */
export interface DecisionSource {
  /** `rule "name"`, `rule #2` or `fallback`. */
  rule: string;
  /** The step's 1-based position in the rule's `steps`. */
  step: number;
}

/**
 * What the scripted model answered to one request, as the journal records it.
 *
 * Script decisions: `call`, `tool_search`, `reply`, `fail`, `http`, `cut`, `hang`,
 * `tool_not_offered`, `unmatched`, `script_error`. Cassette decisions: `record`, `replay`,
 * `replay_mismatch`, `upstream_error`. Any mode: `rejected` (not a request the server serves),
 * `side` (a side request such as a title or a token count, answered without the script).
 */
export type Decision =
  | (DecisionSource & { kind: "call"; calls: DecidedCall[] })
  | (DecisionSource & { kind: "tool_search"; tool: string; callId: string; query: string })
  | (DecisionSource & { kind: "reply"; text: string })
  | (DecisionSource & { kind: "fail"; message: string })
  | (DecisionSource & { kind: "http"; status: number; message: string })
  | (DecisionSource & { kind: "cut" })
  | (DecisionSource & { kind: "hang" })
  | (DecisionSource & { kind: "tool_not_offered"; tool: string; text: string })
  | { kind: "unmatched"; text: string }
  | { kind: "script_error"; message: string }
  | { kind: "record"; interaction: number; status: number }
  | { kind: "replay"; interaction: number; status: number }
  | { kind: "replay_mismatch"; message: string }
  | { kind: "upstream_error"; message: string }
  | { kind: "rejected"; status: number; message: string }
  | { kind: "side"; purpose: SidePurpose; text: string };

/** A decision with its delay, the problem it shows (if any), and the fault it consumes. */
export interface Plan {
  decision: Decision;
  delayMs: number;
  /** Set when the answer is not what the script intended; recorded in the journal. */
  problem?: string;
  /** A fault step to mark as served for this conversation. */
  consumes?: string;
  /** The usage the step set for this answer (a call or a reply), if it set one. */
  usage?: ScriptedUsage;
}

/** Decides the answer to one request. `served` holds the fault steps already served. */
export function decide(script: CompiledScript, request: ReadRequest, served: Set<string>): Plan {
  try {
    return decideOrThrow(script, request, served);
  } catch (error) {
    const message = `the script threw while answering: ${describe(error)}`;
    return { decision: { kind: "script_error", message }, delayMs: 0, problem: message };
  }
}

function decideOrThrow(script: CompiledScript, request: ReadRequest, served: Set<string>): Plan {
  const { conversation } = request;
  const excluded = new Set(request.rulesUsed);
  const ruleAt = (index: number) => (index < 0 ? script.fallback : script.rules[index]);
  const faultKey = (rule: CompiledRule, step: number) =>
    `${request.conversationKey}|t${conversation.turn}|r${rule.index}|s${step}`;

  const exhausted: string[] = [];
  let rule: CompiledRule | undefined;
  let step = 0;
  if (request.position !== null) {
    rule = ruleAt(request.position.rule);
    step = request.position.searching ? request.position.step : request.position.step + 1;
  }
  for (;;) {
    if (rule !== undefined) {
      while (isFault(rule.steps[step]) && served.has(faultKey(rule, step))) step += 1;
      const current = rule.steps[step];
      if (current !== undefined) {
        const plan = playStep(rule, step, current, request, script.refs);
        if (isFault(current)) plan.consumes = faultKey(rule, step);
        return plan;
      }
      excluded.add(rule.index);
      exhausted.push(rule.label);
    }
    rule = script.rules.find((r) => !excluded.has(r.index) && matches(r, conversation));
    if (rule === undefined && script.fallback !== undefined && !excluded.has(-1)) {
      rule = script.fallback;
    }
    if (rule === undefined) return unmatched(request, exhausted);
    step = 0;
  }
}

function isFault(step: CompiledStep | undefined): boolean {
  return step !== undefined && ["fail", "http", "cut", "hang"].includes(step.kind);
}

function matches(rule: CompiledRule, conversation: Conversation): boolean {
  const { when } = rule;
  if (when.turn !== undefined && when.turn !== conversation.turn) return false;
  if (when.user !== undefined && !matchText(when.user, conversation.user)) return false;
  if (when.lastToolResult !== undefined) {
    const last = conversation.lastToolResult;
    if (last === null) return false;
    const matcher = when.lastToolResult;
    if (
      matcher.kind === "subset"
        ? !isSubset(matcher.value, last.value)
        : !matchText(matcher, last.output)
    ) {
      return false;
    }
  }
  if (when.test !== undefined && !when.test(conversation)) return false;
  return true;
}

function matchText(matcher: CompiledTextMatcher, text: string): boolean {
  if (matcher.kind === "contains") return text.toLowerCase().includes(matcher.text);
  matcher.regex.lastIndex = 0;
  return matcher.regex.test(text);
}

function isSubset(expected: unknown, actual: unknown): boolean {
  if (isPlainObject(expected)) {
    return (
      isPlainObject(actual) && Object.entries(expected).every(([k, v]) => isSubset(v, actual[k]))
    );
  }
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      expected.length === actual.length &&
      expected.every((v, i) => isSubset(v, actual[i]))
    );
  }
  return Object.is(expected, actual);
}

function stepContext(rule: CompiledRule, conversation: Conversation): StepContext {
  let match: RegExpMatchArray | null = null;
  if (rule.when.user?.kind === "regex") {
    rule.when.user.regex.lastIndex = 0;
    match = rule.when.user.regex.exec(conversation.user);
  }
  return {
    ...conversation,
    match,
    result: conversation.lastToolResult?.value,
    results: conversation.turnResults.map((r) => r.value),
  };
}

function templateScope(context: StepContext): Record<string, unknown> {
  return {
    result: context.result,
    results: context.results,
    user: context.user,
    match: context.match ?? undefined,
    turn: context.turn,
  };
}

function playStep(
  rule: CompiledRule,
  index: number,
  step: CompiledStep,
  request: ReadRequest,
  refs: readonly string[],
): Plan {
  const source: DecisionSource = { rule: rule.label, step: step.number };
  const delayMs = step.delayMs;
  const context = stepContext(rule, request.conversation);
  const missing: string[] = [];
  const missingProblem = () =>
    missing.length === 0
      ? undefined
      : `${rule.label} step ${step.number}: template value(s) missing: ${missing.join(", ")} ` +
        `(last tool result: ${preview(request.conversation.lastToolResult?.output ?? "none")})`;

  switch (step.kind) {
    case "reply": {
      const text =
        typeof step.reply === "function"
          ? String(step.reply(context))
          : step.reply.renderText(templateScope(context), missing);
      return withProblem(
        { decision: { ...source, kind: "reply", text }, delayMs, ...usageOf(step) },
        missingProblem(),
      );
    }
    case "fail":
      return { decision: { ...source, kind: "fail", message: step.message }, delayMs };
    case "http":
      return {
        decision: {
          ...source,
          kind: "http",
          status: step.status,
          message:
            step.message ??
            `Scripted HTTP ${step.status} error (${rule.label} step ${step.number}).`,
        },
        delayMs,
      };
    case "cut":
      return { decision: { ...source, kind: "cut" }, delayMs };
    case "hang":
      return { decision: { ...source, kind: "hang" }, delayMs };
    case "call":
      break;
  }

  const { conversation, offered } = request;
  const calls: DecidedCall[] = [];
  for (const [k, call] of step.calls.entries()) {
    const exposure = toolExposure(offered, call.server, call.tool);
    if (exposure === null || exposure.kind === "deferred") {
      const searchId = scriptedCallId("ts", conversation.turn, rule.index, index, k);
      const query =
        exposure?.kind === "deferred"
          ? `select:${exposure.name}`
          : offered.search === "codex"
            ? `${call.server} ${call.tool}`
            : null;
      if (query !== null && offered.search !== null && !request.searchesMade.has(searchId)) {
        return {
          decision: { ...source, kind: "tool_search", tool: call.ref, callId: searchId, query },
          delayMs,
        };
      }
      return notOffered(source, call, request, delayMs, refs, rule.notOfferedExpected);
    }
    calls.push({
      ref: call.ref,
      server: call.server,
      tool: call.tool,
      callId: scriptedCallId("call", conversation.turn, rule.index, index, k),
      namespace: exposure.namespace,
      name: exposure.name,
      arguments: callArguments(call, context, missing),
    });
  }
  return withProblem(
    { decision: { ...source, kind: "call", calls }, delayMs, ...usageOf(step) },
    missingProblem(),
  );
}

const usageOf = (step: CompiledStep): { usage?: ScriptedUsage } =>
  step.usage === undefined ? {} : { usage: step.usage };

function callArguments(call: CompiledCall, context: StepContext, missing: string[]): unknown {
  if (typeof call.args === "function") {
    const value: unknown = call.args(context);
    if (!isPlainObject(value)) {
      throw new Error(`the args function of ${call.ref} returned ${typeof value}, not an object`);
    }
    return value as JsonObject;
  }
  return renderJson(call.args, templateScope(context), missing);
}

function renderJson(
  value: JsonValueTemplate,
  scope: Record<string, unknown>,
  missing: string[],
): unknown {
  switch (value.kind) {
    case "literal":
      return value.value;
    case "template":
      return value.template.renderValue(scope, missing);
    case "array":
      return value.items.map((item) => renderJson(item, scope, missing));
    case "object":
      return Object.fromEntries(value.entries.map(([k, v]) => [k, renderJson(v, scope, missing)]));
  }
}

function notOffered(
  source: DecisionSource,
  call: CompiledCall,
  request: ReadRequest,
  delayMs: number,
  refs: readonly string[],
  expected: boolean,
): Plan {
  const offered = offeredMcpTools(request.offered, refs);
  const searched =
    request.offered.search === "codex" ? " (tool_search did not return it either)" : "";
  const names = offeredNames(request.offered);
  const named = request.offered.listNames
    ? `Tools offered, as the request names them: ${names.length === 0 ? "none" : names.join(", ")}. `
    : "";
  const text =
    `I cannot call ${call.ref}: this request does not offer that tool${searched}. ` +
    `MCP tools offered: ${offered.length === 0 ? "none" : offered.join(", ")}. ${named}` +
    `(scripted model, ${source.rule} step ${source.step})`;
  return {
    decision: { ...source, kind: "tool_not_offered", tool: call.ref, text },
    delayMs,
    ...(expected
      ? {}
      : {
          problem: `${source.rule} step ${source.step} calls ${call.ref}, which the request does not offer`,
        }),
  };
}

function unmatched(request: ReadRequest, exhausted: string[]): Plan {
  const { conversation } = request;
  const last = conversation.lastToolResult;
  const done =
    exhausted.length === 0 ? "" : ` (${exhausted.join(", ")} already played all its steps)`;
  const described =
    `latest user message ${JSON.stringify(preview(conversation.user))} (turn ${conversation.turn}), ` +
    `last tool result ${last === null ? "none" : JSON.stringify(preview(last.output))}${done}`;
  const text =
    `Scripted model error: no rule matches this input: ${described}. ` +
    `Add a rule whose "when" matches it, or a "fallback".`;
  return {
    decision: { kind: "unmatched", text },
    delayMs: 0,
    problem: `no rule matched: ${described}`,
  };
}

function withProblem(plan: Plan, problem: string | undefined): Plan {
  return problem === undefined ? plan : { ...plan, problem };
}

/** Shortens a text for messages. */
export function preview(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
