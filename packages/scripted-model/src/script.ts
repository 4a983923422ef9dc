/**
 * Scripts: the rules a scripted model follows, their types, and their validation.
 *
 * A script is an ordered list of rules. At the start of a turn the first rule whose `when`
 * matches the conversation is chosen, and its steps are played one model response at a time:
 * a call step answers with tool calls, and the next request (which carries the tool results)
 * continues with the next step, until a reply, a fault, or the end of the steps.
 */
import { readFileSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { InvalidScript } from "./errors";
import { Template } from "./template";

/** A JSON value. */
export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * A regular expression written as JSON (for JSON scripts): `{ "regex": "quote (\\d+)", "flags":
 * "i" }`. TypeScript scripts can use a `RegExp` directly.
 */
export interface JsonRegExp {
  regex: string;
  flags?: string;
}

/**
 * Matches a text: a string matches when the text contains it, ignoring case; a `RegExp` (or
 * its JSON form) matches when it finds a match.
 */
export type TextMatcher = string | RegExp | JsonRegExp;

/** A tool result as the scripted model reads it from the conversation. */
export interface ToolResult {
  /** The call id the result answers. */
  callId: string;
  /** The server part of the call it answers, when that call is in the conversation. */
  server: string | null;
  /** The tool part of the call it answers, when that call is in the conversation. */
  tool: string | null;
  /** The output text, without the `Wall time: … Output:` preamble Codex adds. */
  output: string;
  /** The output parsed as JSON when it is JSON (e.g. an MCP `structuredContent`), else `output`. */
  value: unknown;
}

/** What the scripted model knows about the conversation when it answers one request. */
export interface Conversation {
  /** The latest user message (Codex's own context messages left out); `""` when none. */
  user: string;
  /** The turn number: how many user messages the conversation holds (1 = first turn). */
  turn: number;
  /** The last tool result anywhere in the conversation, or `null`. */
  lastToolResult: ToolResult | null;
  /** The tool results that arrived since the latest user message, oldest first. */
  turnResults: ToolResult[];
  /** The `model` field of the request. */
  model: string;
  /** The parsed request body, as sent. */
  body: Record<string, unknown>;
}

/** What a step's function (computed arguments, reply function) receives. */
export interface StepContext extends Conversation {
  /** The match of the rule's `when.user` regular expression, or `null`. */
  match: RegExpMatchArray | null;
  /** The last tool result's value (`lastToolResult.value`), or `undefined` when none. */
  result: unknown;
  /** The values of this turn's tool results, oldest first (`turnResults[i].value`). */
  results: unknown[];
}

/** When a rule applies. Every given condition must hold; an empty `when` always matches. */
export interface When {
  /** Matches the latest user message. */
  user?: TextMatcher;
  /** Matches only on this turn number (1 = first user message). */
  turn?: number;
  /**
   * Matches the last tool result: a string or RegExp against its output text, or an object
   * that must be a subset of its JSON value (`{ currency: "USD" }`). An object whose only
   * keys are `regex` (and `flags`) is read as a regular expression.
   */
  lastToolResult?: TextMatcher | JsonObject;
  /** Any other condition (TypeScript scripts only). */
  test?: (conversation: Conversation) => boolean;
}

/**
 * A tool reference, `"server:tool"`: the MCP server's name as configured in the agent, and
 * the tool's name on that server, e.g. `"shipping:shipping_quote"`.
 */
export type ToolReference = string;

/**
 * Call arguments: a JSON object (strings in it may be templates such as `"{{match.1 |
 * number}}"`), or a function of the step context that returns one.
 */
export type CallArguments = JsonObject | ((context: StepContext) => JsonObject);

/**
 * The token usage an answer reports, in every dialect (streamed or not), instead of the
 * scripted model's estimate. `inputTokens` counts the whole prompt, cached part included;
 * `outputTokens` counts everything generated, reasoning included. Each dialect spells them
 * its own way: Anthropic's `input_tokens` is the uncached part next to
 * `cache_read_input_tokens`, Gemini's `candidatesTokenCount` the part besides
 * `thoughtsTokenCount`.
 *
 * @example
 * ```ts
 * const step = { reply: "Done.", usage: { inputTokens: 1200, outputTokens: 40, cachedInputTokens: 1000 } };
 * ```
 */
export interface ScriptedUsage {
  inputTokens: number;
  outputTokens: number;
  /** The part of `inputTokens` read from a prompt cache; not reported when omitted. */
  cachedInputTokens?: number;
  /** The part of `outputTokens` spent reasoning; not reported when omitted. */
  reasoningTokens?: number;
}

/** Answer with one tool call. */
export interface CallStep {
  call: ToolReference;
  /** The call's arguments; `{}` when omitted. */
  args?: CallArguments;
  /** The usage this answer reports; the script's `usage`, or an estimate, when omitted. */
  usage?: ScriptedUsage;
}

/** Answer with several tool calls in one response (the agent may run them in parallel). */
export interface ParallelStep {
  /** The calls (a call here takes no `usage` of its own: the answer is one). */
  parallel: CallStep[];
  /** The usage this answer reports; the script's `usage`, or an estimate, when omitted. */
  usage?: ScriptedUsage;
}

/**
 * Answer with a text message, which ends the turn. A string is a template (`"The quote is
 * {{result.amount}} {{result.currency}}."`); a function gets the step context.
 */
export interface ReplyStep {
  reply: string | ((context: StepContext) => string);
  /** The usage this answer reports; the script's `usage`, or an estimate, when omitted. */
  usage?: ScriptedUsage;
}

/** Answer with a `response.failed` event carrying this message. */
export interface FailStep {
  fail: string;
}

/** Answer with an HTTP error status (400, 401, 429, 500, …) and an OpenAI-style error body. */
export interface HttpErrorStep {
  http: number;
  /** The error message in the body; a default naming the status when omitted. */
  message?: string;
}

/** Start a response stream, then close it before `response.completed`. */
export interface CutStep {
  cut: true;
}

/** Start a response stream and never finish it (until the client or the server gives up). */
export interface HangStep {
  hang: true;
}

/** Wait this many milliseconds before sending the next step's response. */
export interface DelayStep {
  delay: number;
}

/** One step of a rule. */
export type Step =
  CallStep | ParallelStep | ReplyStep | FailStep | HttpErrorStep | CutStep | HangStep | DelayStep;

/** A rule: when the conversation matches, answer with these steps. */
export interface Rule {
  /** A name for journal entries and error messages; rules are numbered (#1, #2, …) otherwise. */
  name?: string;
  /** When the rule applies; always when omitted. */
  when?: When;
  /** What to answer, one model response per step (a delay joins the step after it). */
  steps: Step[];
  /**
   * `"expected"` when this rule calls a tool the agent may not be offered on purpose (a test
   * of an allow-list): the model still answers in plain words, and the journal records no
   * problem. By default (`"problem"`) such a call is a problem of the script, and jest-m3
   * fails the test whose turn made it.
   */
  toolNotOffered?: ToolNotOffered;
}

/** What a call to a tool the request does not offer means: a script problem, or expected. */
export type ToolNotOffered = "problem" | "expected";

/** A script for {@link startScriptedModel}. */
export interface Script {
  /** A name for journal output. */
  name?: string;
  /** The rules, tried in order at the start of each turn. */
  rules: Rule[];
  /**
   * Steps for input no rule matches. When omitted, such input gets a reply that names the
   * input that matched nothing (and the journal records a problem).
   */
  fallback?: Step[];
  /** {@link Rule.toolNotOffered} for every rule and the fallback; a rule's own setting wins. */
  toolNotOffered?: ToolNotOffered;
  /**
   * The usage every answer reports whose step sets none (side answers such as titles
   * included); without it, an estimate from the request's and the answer's sizes.
   */
  usage?: ScriptedUsage;
}

/** The step kinds, in the order error messages list them. */
export const STEP_KINDS = [
  "call",
  "parallel",
  "reply",
  "fail",
  "http",
  "cut",
  "hang",
  "delay",
] as const;

const STEP_FIELDS: Record<(typeof STEP_KINDS)[number], readonly string[]> = {
  call: ["call", "args", "usage"],
  parallel: ["parallel", "usage"],
  reply: ["reply", "usage"],
  fail: ["fail"],
  http: ["http", "message"],
  cut: ["cut"],
  hang: ["hang"],
  delay: ["delay"],
};

const WHEN_FIELDS = ["user", "turn", "lastToolResult", "test"];
const RULE_FIELDS = ["name", "when", "steps", "toolNotOffered"];
const SCRIPT_FIELDS = ["name", "rules", "fallback", "toolNotOffered", "usage"];

// ---------------------------------------------------------------------------------------------
// The validated form the server plays.

/** A validated call. @internal */
export interface CompiledCall {
  ref: string;
  server: string;
  tool: string;
  args: ((context: StepContext) => JsonObject) | JsonValueTemplate;
}

/** A JSON value whose strings may be templates. @internal */
export type JsonValueTemplate =
  | { kind: "literal"; value: JsonValue }
  | { kind: "template"; template: Template }
  | { kind: "array"; items: JsonValueTemplate[] }
  | { kind: "object"; entries: [string, JsonValueTemplate][] };

/** A validated step: one model response. @internal */
export type CompiledStep = { number: number; delayMs: number; usage?: ScriptedUsage } & (
  | { kind: "call"; calls: CompiledCall[] }
  | { kind: "reply"; reply: Template | ((context: StepContext) => string) }
  | { kind: "fail"; message: string }
  | { kind: "http"; status: number; message: string | undefined }
  | { kind: "cut" }
  | { kind: "hang" }
);

/** A validated text matcher. @internal */
export type CompiledTextMatcher =
  { kind: "contains"; text: string } | { kind: "regex"; regex: RegExp };

/** A validated rule. @internal */
export interface CompiledRule {
  /** Position in the script (0-based), or -1 for the fallback. */
  index: number;
  /** `rule "name"`, `rule #2` or `fallback`. */
  label: string;
  name: string | undefined;
  when: {
    user?: CompiledTextMatcher;
    turn?: number;
    lastToolResult?: CompiledTextMatcher | { kind: "subset"; value: JsonObject };
    test?: (conversation: Conversation) => boolean;
  };
  steps: CompiledStep[];
  /** Whether a call to a tool the request does not offer is expected (no journal problem). */
  notOfferedExpected: boolean;
}

/** A validated script. @internal */
export interface CompiledScript {
  name: string | undefined;
  /** Every `server:tool` the script calls. */
  refs: string[];
  rules: CompiledRule[];
  fallback: CompiledRule | undefined;
  /** The usage of every answer whose step sets none, or undefined (an estimate). */
  usage: ScriptedUsage | undefined;
}

/**
 * Checks a script and returns it unchanged, or throws {@link InvalidScript} naming the rule and
 * step at fault. {@link startScriptedModel} does this itself; call it to fail earlier.
 */
export function validateScript(script: Script): Script {
  compileScript(script);
  return script;
}

/**
 * Reads a script from a JSON file. JSON scripts use `{ "regex": "...", "flags": "i" }` where a
 * TypeScript script would use a RegExp, and templates where it would use functions.
 *
 * @throws {@link InvalidScript} when the file cannot be read, is not JSON, or is not a valid
 * script; the message names the file.
 */
export function loadScript(file: string): Script {
  const location = `script file ${file}`;
  let text: string;
  try {
    text = readFileSync(resolvePath(file), "utf8");
  } catch (error) {
    throw new InvalidScript(location, `cannot be read (${describe(error)})`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InvalidScript(location, `is not valid JSON (${describe(error)})`, { cause: error });
  }
  try {
    compileScript(parsed);
  } catch (error) {
    if (error instanceof InvalidScript) {
      throw new InvalidScript(`${location}: ${error.location}`, error.problem, { cause: error });
    }
    throw error;
  }
  return parsed as Script;
}

/** Validates and compiles a script. @internal */
export function compileScript(script: unknown): CompiledScript {
  if (!isPlainObject(script)) {
    throw new InvalidScript(
      "script",
      `must be an object like { rules: [...] }, got ${kindOf(script)}`,
    );
  }
  rejectUnknownFields(script, SCRIPT_FIELDS, "script", "a script");
  if (script.name !== undefined && typeof script.name !== "string") {
    throw new InvalidScript("script", `"name" must be a string, got ${kindOf(script.name)}`);
  }
  if (!Array.isArray(script.rules)) {
    throw new InvalidScript(
      "script",
      `"rules" must be an array of rules, got ${kindOf(script.rules)}`,
    );
  }
  const scriptWide = compileToolNotOffered(script.toolNotOffered, "script");
  const names = new Set<string>();
  const rules = script.rules.map((rule: unknown, index: number) => {
    const compiled = compileRule(rule, index, scriptWide);
    if (compiled.name !== undefined) {
      if (names.has(compiled.name)) {
        throw new InvalidScript(
          compiled.label,
          "another rule has the same name; give each rule its own",
        );
      }
      names.add(compiled.name);
    }
    return compiled;
  });
  let fallback: CompiledRule | undefined;
  if (script.fallback !== undefined) {
    fallback = {
      index: -1,
      label: "fallback",
      name: undefined,
      when: {},
      steps: compileSteps(script.fallback, "fallback"),
      notOfferedExpected: scriptWide === "expected",
    };
  }
  const refs = new Set<string>();
  for (const rule of [...rules, ...(fallback === undefined ? [] : [fallback])]) {
    for (const step of rule.steps) {
      if (step.kind === "call") for (const call of step.calls) refs.add(call.ref);
    }
  }
  return {
    name: script.name as string | undefined,
    refs: [...refs],
    rules,
    fallback,
    usage: compileUsage(script.usage, "script"),
  };
}

const USAGE_FIELDS = ["inputTokens", "outputTokens", "cachedInputTokens", "reasoningTokens"];

function compileUsage(value: unknown, at: string): ScriptedUsage | undefined {
  if (value === undefined) return undefined;
  const example = `{ inputTokens: 1200, outputTokens: 40 }`;
  if (!isPlainObject(value)) {
    throw new InvalidScript(at, `"usage" must be an object like ${example}, got ${kindOf(value)}`);
  }
  rejectUnknownFields(value, USAGE_FIELDS, `${at} usage`, "a usage");
  const count = (name: string, required: boolean): number | undefined => {
    const n = value[name];
    if (n === undefined && !required) return undefined;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
      throw new InvalidScript(
        `${at} usage`,
        `"${name}" must be a whole number of tokens ≥ 0, got ${kindOf(n)} (write usage like ${example})`,
      );
    }
    return n;
  };
  const usage: ScriptedUsage = {
    inputTokens: count("inputTokens", true)!,
    outputTokens: count("outputTokens", true)!,
  };
  const cached = count("cachedInputTokens", false);
  const reasoning = count("reasoningTokens", false);
  if (cached !== undefined) {
    if (cached > usage.inputTokens) {
      throw new InvalidScript(
        `${at} usage`,
        `"cachedInputTokens" (${cached}) is part of "inputTokens" (${usage.inputTokens}), so it cannot be more`,
      );
    }
    usage.cachedInputTokens = cached;
  }
  if (reasoning !== undefined) {
    if (reasoning > usage.outputTokens) {
      throw new InvalidScript(
        `${at} usage`,
        `"reasoningTokens" (${reasoning}) is part of "outputTokens" (${usage.outputTokens}), so it cannot be more`,
      );
    }
    usage.reasoningTokens = reasoning;
  }
  return usage;
}

function compileToolNotOffered(value: unknown, label: string): ToolNotOffered | undefined {
  if (value === undefined || value === "problem" || value === "expected") return value;
  throw new InvalidScript(
    label,
    `"toolNotOffered" must be "problem" (the default: the test fails) or "expected" (a test ` +
      `of an allow-list calls a tool the agent is not offered on purpose), got ${kindOf(value)}`,
  );
}

function compileRule(
  rule: unknown,
  index: number,
  scriptWide: ToolNotOffered | undefined,
): CompiledRule {
  const numbered = `rule #${index + 1}`;
  if (!isPlainObject(rule)) {
    throw new InvalidScript(
      numbered,
      `must be an object like { when, steps }, got ${kindOf(rule)}`,
    );
  }
  if (rule.name !== undefined && (typeof rule.name !== "string" || rule.name.length === 0)) {
    throw new InvalidScript(
      numbered,
      `"name" must be a non-empty string, got ${kindOf(rule.name)}`,
    );
  }
  const name = rule.name as string | undefined;
  const label = name === undefined ? numbered : `rule "${name}"`;
  rejectUnknownFields(rule, RULE_FIELDS, label, "a rule");
  return {
    index,
    label,
    name,
    when: compileWhen(rule.when, label),
    steps: compileSteps(rule.steps, label),
    notOfferedExpected:
      (compileToolNotOffered(rule.toolNotOffered, label) ?? scriptWide) === "expected",
  };
}

function compileWhen(when: unknown, label: string): CompiledRule["when"] {
  if (when === undefined) return {};
  const at = `${label} when`;
  if (!isPlainObject(when)) {
    throw new InvalidScript(at, `must be an object like { user: "..." }, got ${kindOf(when)}`);
  }
  rejectUnknownFields(when, WHEN_FIELDS, at, "a when");
  const out: CompiledRule["when"] = {};
  if (when.user !== undefined) out.user = compileTextMatcher(when.user, `${at}.user`);
  if (when.turn !== undefined) {
    if (typeof when.turn !== "number" || !Number.isInteger(when.turn) || when.turn < 1) {
      throw new InvalidScript(
        `${at}.turn`,
        `must be a turn number 1, 2, …, got ${kindOf(when.turn)}`,
      );
    }
    out.turn = when.turn;
  }
  if (when.lastToolResult !== undefined) {
    const value = when.lastToolResult;
    if (isPlainObject(value) && !isJsonRegExp(value)) {
      out.lastToolResult = { kind: "subset", value: value as JsonObject };
    } else {
      out.lastToolResult = compileTextMatcher(value, `${at}.lastToolResult`);
    }
  }
  if (when.test !== undefined) {
    if (typeof when.test !== "function") {
      throw new InvalidScript(`${at}.test`, `must be a function, got ${kindOf(when.test)}`);
    }
    out.test = when.test as (conversation: Conversation) => boolean;
  }
  return out;
}

function compileTextMatcher(value: unknown, at: string): CompiledTextMatcher {
  if (typeof value === "string") return { kind: "contains", text: value.toLowerCase() };
  if (value instanceof RegExp) return { kind: "regex", regex: value };
  if (isJsonRegExp(value)) {
    try {
      return { kind: "regex", regex: new RegExp(value.regex, value.flags ?? "") };
    } catch (error) {
      throw new InvalidScript(at, `is not a valid regular expression (${describe(error)})`);
    }
  }
  throw new InvalidScript(
    at,
    `must be a string, a RegExp, or { "regex": "...", "flags": "..." }, got ${kindOf(value)}`,
  );
}

function compileSteps(steps: unknown, label: string): CompiledStep[] {
  if (!Array.isArray(steps) || steps.length === 0) {
    throw new InvalidScript(
      label,
      `"steps" must be a non-empty array of steps, got ${kindOf(steps)}`,
    );
  }
  const out: CompiledStep[] = [];
  let delayMs = 0;
  let ended: string | undefined;
  steps.forEach((step: unknown, i: number) => {
    const at = `${label} step ${i + 1}`;
    if (ended !== undefined) {
      throw new InvalidScript(at, `is never reached: ${ended} ends the turn; remove it or move it`);
    }
    const kind = stepKind(step, at);
    const s = step as Record<string, unknown>;
    const usage = compileUsage(s.usage, at);
    const base = { number: i + 1, delayMs, ...(usage === undefined ? {} : { usage }) };
    switch (kind) {
      case "delay": {
        if (typeof s.delay !== "number" || !Number.isFinite(s.delay) || s.delay < 0) {
          throw new InvalidScript(
            at,
            `"delay" must be milliseconds (a number ≥ 0), got ${kindOf(s.delay)}`,
          );
        }
        delayMs += s.delay;
        return;
      }
      case "call":
        out.push({ ...base, kind: "call", calls: [compileCall(s, at)] });
        break;
      case "parallel": {
        if (!Array.isArray(s.parallel) || s.parallel.length === 0) {
          throw new InvalidScript(at, `"parallel" must be a non-empty array of call steps`);
        }
        const calls = s.parallel.map((call: unknown, j: number) => {
          const callAt = `${at} parallel call ${j + 1}`;
          if (stepKind(call, callAt) !== "call") {
            throw new InvalidScript(
              callAt,
              `must be a call step like { call: "server:tool", args }`,
            );
          }
          if ((call as Record<string, unknown>).usage !== undefined) {
            throw new InvalidScript(
              callAt,
              `takes no "usage": the parallel calls are one answer, so give "usage" on the parallel step`,
            );
          }
          return compileCall(call as Record<string, unknown>, callAt);
        });
        out.push({ ...base, kind: "call", calls });
        break;
      }
      case "reply": {
        const reply = s.reply;
        if (typeof reply === "function") {
          out.push({ ...base, kind: "reply", reply: reply as (context: StepContext) => string });
        } else if (typeof reply === "string") {
          out.push({ ...base, kind: "reply", reply: compileTemplate(reply, `${at} reply`) });
        } else {
          throw new InvalidScript(
            at,
            `"reply" must be a string or a function, got ${kindOf(reply)}`,
          );
        }
        ended = `step ${i + 1} (reply)`;
        break;
      }
      case "fail":
        if (typeof s.fail !== "string" || s.fail.length === 0) {
          throw new InvalidScript(at, `"fail" must be the failure message, got ${kindOf(s.fail)}`);
        }
        out.push({ ...base, kind: "fail", message: s.fail });
        break;
      case "http":
        if (
          typeof s.http !== "number" ||
          !Number.isInteger(s.http) ||
          s.http < 400 ||
          s.http > 599
        ) {
          throw new InvalidScript(
            at,
            `"http" must be an error status 400…599, got ${kindOf(s.http)}`,
          );
        }
        if (s.message !== undefined && typeof s.message !== "string") {
          throw new InvalidScript(at, `"message" must be a string, got ${kindOf(s.message)}`);
        }
        out.push({
          ...base,
          kind: "http",
          status: s.http,
          message: s.message as string | undefined,
        });
        break;
      case "cut":
      case "hang":
        if (s[kind] !== true) {
          throw new InvalidScript(
            at,
            `write a ${kind} step as { ${kind}: true }, got ${kindOf(s[kind])}`,
          );
        }
        out.push({ ...base, kind });
        break;
    }
    delayMs = 0;
  });
  if (delayMs > 0 || out.length === 0) {
    throw new InvalidScript(
      `${label} step ${steps.length}`,
      `a delay must be followed by the step it delays (call, reply, fail, http, cut or hang)`,
    );
  }
  return out;
}

function stepKind(step: unknown, at: string): (typeof STEP_KINDS)[number] {
  if (!isPlainObject(step)) {
    throw new InvalidScript(
      at,
      `must be an object with one of ${STEP_KINDS.join(", ")} (e.g. { reply: "..." }), ` +
        `got ${kindOf(step)}`,
    );
  }
  const keys = Object.keys(step);
  const kinds = keys.filter((k): k is (typeof STEP_KINDS)[number] =>
    (STEP_KINDS as readonly string[]).includes(k),
  );
  if (kinds.length === 0) {
    const first = keys[0];
    throw new InvalidScript(
      at,
      (first === undefined ? "is empty" : `has unknown step kind "${first}"`) +
        `; use one of ${STEP_KINDS.join(", ")}`,
    );
  }
  if (kinds.length > 1) {
    throw new InvalidScript(at, `has several step kinds (${kinds.join(", ")}); give one per step`);
  }
  const kind = kinds[0] as (typeof STEP_KINDS)[number];
  rejectUnknownFields(step, STEP_FIELDS[kind], at, `a ${kind} step`);
  return kind;
}

function compileCall(step: Record<string, unknown>, at: string): CompiledCall {
  const ref = step.call;
  if (typeof ref !== "string") {
    throw new InvalidScript(
      at,
      `"call" must be a tool reference "server:tool", got ${kindOf(ref)}`,
    );
  }
  const match = /^([^:\s]+):([^:\s]+)$/.exec(ref);
  if (match === null) {
    throw new InvalidScript(
      at,
      `tool reference "${ref}" is malformed; write it as "server:tool" with the MCP server's ` +
        `name and the tool's name, e.g. "shipping:shipping_quote"`,
    );
  }
  const args = step.args;
  let compiled: CompiledCall["args"];
  if (args === undefined) {
    compiled = { kind: "literal", value: {} };
  } else if (typeof args === "function") {
    compiled = args as (context: StepContext) => JsonObject;
  } else if (isPlainObject(args)) {
    compiled = compileJsonTemplate(args, `${at} args`);
  } else {
    throw new InvalidScript(at, `"args" must be an object or a function, got ${kindOf(args)}`);
  }
  return { ref, server: match[1] as string, tool: match[2] as string, args: compiled };
}

function compileJsonTemplate(value: unknown, at: string): JsonValueTemplate {
  if (typeof value === "string") {
    const template = compileTemplate(value, at);
    return template.dynamic ? { kind: "template", template } : { kind: "literal", value };
  }
  if (Array.isArray(value)) {
    return { kind: "array", items: value.map((v, i) => compileJsonTemplate(v, `${at}[${i}]`)) };
  }
  if (isPlainObject(value)) {
    return {
      kind: "object",
      entries: Object.entries(value).map(([k, v]) => [k, compileJsonTemplate(v, `${at}.${k}`)]),
    };
  }
  if (value === null || typeof value === "number" || typeof value === "boolean") {
    return { kind: "literal", value };
  }
  throw new InvalidScript(
    at,
    `must be JSON (string, number, boolean, null, array, object), got ${kindOf(value)}`,
  );
}

function compileTemplate(text: string, at: string): Template {
  const parsed = Template.parse(text);
  if (parsed instanceof Template) return parsed;
  throw new InvalidScript(at, parsed.problem);
}

function rejectUnknownFields(
  value: Record<string, unknown>,
  allowed: readonly string[],
  at: string,
  what: string,
) {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw new InvalidScript(
        at,
        `unknown field "${key}" in ${what}; allowed: ${allowed.join(", ")}`,
      );
    }
  }
}

function isJsonRegExp(value: unknown): value is JsonRegExp {
  if (!isPlainObject(value) || typeof value.regex !== "string") return false;
  const keys = Object.keys(value);
  return (
    keys.every((k) => k === "regex" || k === "flags") &&
    (value.flags === undefined || typeof value.flags === "string")
  );
}

/** Whether `value` is a non-null, non-array object. @internal */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof RegExp)
  );
}

/** A short description of a value's type for error messages. @internal */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value instanceof RegExp) return `the RegExp ${String(value)}`;
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  if (typeof value === "number" || typeof value === "boolean")
    return `${typeof value} ${String(value)}`;
  if (typeof value === "undefined") return "nothing";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** An error's message. @internal */
export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
