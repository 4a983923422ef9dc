/**
 * Script mode: a model server that answers from a script.
 */
import { offeredMcpTools, readRequest } from "./conversation";
import { decide, type Decision } from "./decision";
import { ResponseBuilder, type SseEvent } from "./responses-stream";
import { compileScript, loadScript, type Script } from "./script";
import {
  sendError,
  serve,
  sleep,
  startStream,
  untilAborted,
  writeEvents,
  type ScriptedModel,
  type ServerOptions,
} from "./server";

/** Options of {@link startScriptedModel}. */
export type ScriptedModelOptions = ServerOptions;

/**
 * Starts a model server on 127.0.0.1 that answers OpenAI Responses API requests (streaming)
 * from a script.
 *
 * @param script - The script, or the path of a JSON script file.
 * @param options - `port` (any free port by default) and the provider `name`.
 * @returns The running server: `provider` for the agent, `journal`, `close()`.
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
  let responses = 0;

  return serve(async (request, answer) => {
    const body = request.json as Record<string, unknown>;
    const read = readRequest(body);
    const plan = decide(compiled, read, served);
    if (plan.consumes !== undefined) served.add(plan.consumes);
    const { decision } = plan;
    const status =
      decision.kind === "http" ? decision.status : decision.kind === "script_error" ? 500 : 200;
    answer.record({
      decision,
      status,
      conversation: {
        turn: read.conversation.turn,
        user: read.conversation.user,
        turnResults: read.conversation.turnResults,
        offeredTools: offeredMcpTools(read.offered),
        toolSearch: read.offered.toolSearch,
      },
      delayMs: plan.delayMs,
      problem: plan.problem,
    });
    await sleep(plan.delayMs, request.signal);
    if (request.signal.aborted) return;

    const res = answer.response;
    if (decision.kind === "http") {
      sendError(
        res,
        decision.status,
        decision.message,
        undefined,
        decision.status === 429 ? "1" : undefined,
      );
      return;
    }
    if (decision.kind === "script_error") {
      sendError(res, 500, `Scripted model: ${decision.message}`, "script_error");
      return;
    }
    responses += 1;
    const builder = new ResponseBuilder(
      `resp_m3_${responses}`,
      read.conversation.model,
      Math.max(1, Math.ceil(request.raw.length / 4)),
    ).start();
    startStream(res);
    const events = buildEvents(builder, decision);
    writeEvents(res, events);
    if (decision.kind === "hang") {
      await untilAborted(request.signal);
      res.destroy();
      return;
    }
    res.end();
  }, options);
}

function buildEvents(builder: ResponseBuilder, decision: Decision): SseEvent[] {
  switch (decision.kind) {
    case "call":
      for (const call of decision.calls) {
        builder.item({
          type: "function_call",
          callId: call.callId,
          namespace: call.namespace,
          name: call.name,
          arguments: JSON.stringify(call.arguments),
        });
      }
      return builder.complete();
    case "tool_search":
      return builder
        .item({ type: "tool_search_call", callId: decision.callId, query: decision.query })
        .complete();
    case "reply":
    case "tool_not_offered":
    case "unmatched":
      return builder.item({ type: "message", text: decision.text }).complete();
    case "fail":
      return builder.fail(decision.message);
    case "cut":
      return builder.partialMessage("This response is cut before it completes").partial();
    case "hang":
      return builder.partial();
    default:
      throw new Error(`decision ${decision.kind} has no stream`);
  }
}
