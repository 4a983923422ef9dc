/**
 * Script mode: a model server that answers from a script, in every dialect at once.
 */
import {
  emptyRequest,
  offeredMcpTools,
  readConversation,
  type NeutralRequest,
} from "./conversation";
import { decide } from "./decision";
import { estimateTokens, type RenderContext } from "./dialects/dialect";
import type { JournalConversation } from "./journal";
import { compileScript, loadScript, type Script } from "./script";
import { sideAnswer } from "./side";
import { serve, sleep, type ScriptedModel, type ServerOptions } from "./server";

/** The decisions whose answer reports usage (the others are errors, cut or held streams). */
const WITH_USAGE = new Set(["call", "tool_search", "reply", "tool_not_offered", "unmatched"]);
/** The side answers a model generates (a token count, a probe or a model list is none). */
const GENERATED_SIDE = new Set(["title", "routing", "summary"]);

/** Options of {@link startScriptedModel}. */
export type ScriptedModelOptions = ServerOptions;

/**
 * Starts a model server on 127.0.0.1 that answers from a script, in every provider dialect on
 * one port: the OpenAI Responses API (`model.provider`, for Codex), and through
 * `model.providerFor(dialect)` Chat Completions, Anthropic Messages and the Gemini API.
 *
 * @param script - The script, or the path of a JSON script file.
 * @param options - `port` (any free port by default) and the provider `name`.
 * @returns The running server: `provider` and `providerFor()` for the agent, `journal`, `close()`.
 * @throws {@link InvalidScript} when the script is malformed (before anything listens).
 * @throws {@link ServerStartFailed} when the port cannot be used.
 *
 * @example
 * ```ts
 * await using model = await startScriptedModel({
 *   rules: [{
 *     when: { user: /quote/i },
 *     steps: [
 *       { call: "shipping:shipping_quote", args: { weight_kg: 2, zone: "local" } },
 *       { reply: "Shipping costs {{result.amount}} {{result.currency}}." },
 *     ],
 *   }],
 * });
 * ```
 */
export async function startScriptedModel(
  script: Script | string,
  options: ScriptedModelOptions = {},
): Promise<ScriptedModel> {
  const compiled = compileScript(typeof script === "string" ? loadScript(script) : script);
  const served = new Set<string>();
  let serial = 0;

  return serve(async (request, answer) => {
    const { dialect, route } = request;
    serial += 1;
    const neutral =
      request.json === undefined
        ? null
        : dialect.read(request.json as Record<string, unknown>, route);
    const context: RenderContext = {
      serial,
      model: neutral?.model || route.model || "scripted",
      stream: neutral?.stream ?? false,
      inputTokens: estimateTokens(request.raw.toString("utf8")),
      request: neutral ?? emptyRequest(request.dialect.name, route.model ?? ""),
      ...(compiled.usage === undefined ? {} : { usage: compiled.usage }),
    };
    const purpose = route.kind === "side" ? route.purpose : neutral?.side;
    if (purpose !== undefined) {
      const side = sideAnswer(purpose, neutral);
      const rendered = dialect.renderSide(side, context);
      answer.record({
        decision: { kind: "side", purpose, text: side.text },
        status: rendered.status,
        conversation: neutral === null ? null : journalConversation(neutral, compiled.refs),
        usage: GENERATED_SIDE.has(purpose) ? context.usage : undefined,
      });
      await answer.send(rendered);
      return;
    }
    const read = readConversation(context.request, compiled.refs);
    const plan = decide(compiled, read, served);
    if (plan.consumes !== undefined) served.add(plan.consumes);
    const { decision } = plan;
    if (plan.usage !== undefined) context.usage = plan.usage;
    const rendered =
      decision.kind === "http"
        ? dialect.error(decision.status, decision.message)
        : decision.kind === "script_error"
          ? dialect.error(500, `Scripted model: ${decision.message}`, "script_error")
          : dialect.render(decision, context);
    answer.record({
      decision,
      status: rendered.status,
      conversation: journalConversation(context.request, compiled.refs),
      delayMs: plan.delayMs,
      problem: plan.problem,
      usage: WITH_USAGE.has(decision.kind) ? context.usage : undefined,
    });
    await sleep(plan.delayMs, request.signal);
    if (request.signal.aborted) return;
    await answer.send(rendered);
  }, options);
}

/** What the journal records of a request's conversation. @internal */
export function journalConversation(
  request: NeutralRequest,
  refs: readonly string[],
): JournalConversation {
  const read = readConversation(request, refs);
  return {
    turn: read.conversation.turn,
    user: read.conversation.user,
    turnResults: read.conversation.turnResults,
    offeredTools: offeredMcpTools(read.offered, refs),
    toolSearch: read.offered.search !== null,
  };
}
