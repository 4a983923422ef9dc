/**
 * Record and replay modes: a model server that forwards to a real Responses endpoint and
 * writes a cassette, and one that serves a cassette with no upstream at all.
 */
import {
  CASSETTE_FORMAT,
  CASSETTE_VERSION,
  canonicalJson,
  describeDifferences,
  fingerprint,
  loadCassette,
  saveCassette,
  summarizeNeutral,
  toJsonRegExps,
  toRegExps,
  type Cassette,
  type Interaction,
  type RecordedResponse,
  type RequestSummary,
} from "./cassette";
import { preview } from "./decision";
import { MissingApiKey, ScriptedModelError } from "./errors";
import type { JournalConversation } from "./journal";
import { journalConversation } from "./scripted-server";
import { SseReader, type SseEvent } from "./responses-stream";
import { describe, type JsonRegExp } from "./script";
import { emptyRequest, type NeutralRequest } from "./conversation";
import { DIALECTS } from "./dialects";
import {
  PROVIDER_DIALECTS,
  estimateTokens,
  type ProviderDialect,
  type SidePurpose,
} from "./dialects/dialect";
import { sideAnswer } from "./side";
import {
  serve,
  startStream,
  writeEvents,
  type Answer,
  type ModelRequest,
  type ScriptedModel,
  type ServerOptions,
} from "./server";

/** Where record mode forwards requests. */
export interface Upstream {
  /**
   * The upstream base URL as its vendor's SDK takes it: `https://api.openai.com/v1` for
   * `responses` and `chat-completions` (the request path after `/v1` is appended), the API
   * origin for `anthropic-messages` and `gemini` (the whole request path is appended).
   */
  baseUrl: string;
  /**
   * The dialect recorded; requests of another dialect are refused. `responses` when omitted.
   * The key is sent the way that vendor expects it (`Authorization: Bearer`, `x-api-key`,
   * `x-goog-api-key`).
   */
  dialect?: ProviderDialect;
  /**
   * The NAME of the environment variable holding the API key.
   * The value is read at start, kept in memory only, and never written to the cassette or the
   * journal. Omit for an upstream that needs no key.
   */
  apiKeyEnv?: string;
}

/** Options of {@link startRecordingModel}. */
export interface RecordingOptions extends ServerOptions {
  /** The real endpoint to forward to. */
  upstream: Upstream;
  /** The cassette file to write (replaced; saved after every interaction and on close). */
  cassette: string;
  /**
   * Patterns for parts of requests that change from run to run in your setup (timestamps in
   * tool results, generated ids); matches are left out of fingerprints. Saved in the cassette,
   * so replay uses them too.
   */
  volatile?: (RegExp | JsonRegExp)[];
}

/** Options of {@link startReplayModel}. */
export interface ReplayOptions extends ServerOptions {
  /** The cassette file to serve. */
  cassette: string;
}

/**
 * Starts a recording model server: every request is forwarded to `upstream`, the response is
 * streamed back unchanged, and the pair is saved in the cassette (fingerprint of the request,
 * the response's events).
 *
 * @throws {@link MissingApiKey} when `upstream.apiKeyEnv` names an unset variable.
 * @throws {@link ServerStartFailed} when the port cannot be used.
 */
export async function startRecordingModel(options: RecordingOptions): Promise<ScriptedModel> {
  const { upstream } = options;
  if (typeof upstream?.baseUrl !== "string" || !/^https?:\/\//.test(upstream.baseUrl)) {
    throw new ScriptedModelError(
      `Record mode needs upstream.baseUrl, an http(s) URL such as "https://api.openai.com/v1"; ` +
        `got ${JSON.stringify(upstream?.baseUrl)}.`,
    );
  }
  let key: string | undefined;
  if (upstream.apiKeyEnv !== undefined) {
    key = process.env[upstream.apiKeyEnv];
    if (key === undefined || key.length === 0) throw new MissingApiKey(upstream.apiKeyEnv);
  }
  const volatile = toJsonRegExps(options.volatile ?? []);
  const patterns = toRegExps(volatile);
  const baseUrl = upstream.baseUrl.replace(/\/+$/, "");
  const dialectName = upstream.dialect ?? "responses";
  const dialect = DIALECTS.find((d) => d.name === dialectName);
  if (dialect === undefined) {
    throw new ScriptedModelError(
      `Record mode: upstream.dialect ${JSON.stringify(dialectName)} is not one of ` +
        `${PROVIDER_DIALECTS.join(", ")}.`,
    );
  }
  const versioned = dialect.baseUrl("") === "/v1";
  const cassette: Cassette = {
    format: CASSETTE_FORMAT,
    version: CASSETTE_VERSION,
    dialect: dialectName,
    recordedAt: new Date().toISOString(),
    upstream: { baseUrl, apiKeyEnv: upstream.apiKeyEnv ?? null },
    volatile,
    interactions: [],
  };
  const secret = key === undefined ? undefined : { value: key, name: upstream.apiKeyEnv as string };
  const save = () => saveCassette(options.cassette, cassette, secret);
  save();
  let reserved = 0;

  return serve(
    async (request, answer) => {
      if (request.dialect.name !== dialectName) {
        await refuseDialect(request, answer, `This recording is of the ${dialectName} dialect`);
        return;
      }
      const summary = summarize(request, patterns);
      const index = ++reserved;
      const target = `${baseUrl}${versioned ? request.path.replace(/^\/v1(?=\/)/, "") : request.path}`;
      const forwarded: Record<string, string> = {};
      for (const name of ["anthropic-version", "anthropic-beta"]) {
        if (request.headers[name] !== undefined) forwarded[name] = request.headers[name];
      }
      let upstreamResponse: Response;
      try {
        upstreamResponse = await fetch(target, {
          method: request.method,
          headers: {
            ...forwarded,
            ...(request.method === "POST" ? { "content-type": "application/json" } : {}),
            accept: "text/event-stream, application/json",
            ...(key === undefined ? {} : dialect.authHeaders(key)),
          },
          body: request.method === "POST" ? request.raw : undefined,
          signal: request.signal,
        });
      } catch (error) {
        const message = `The upstream ${target} could not be reached: ${describe(error)}`;
        answer.record({
          decision: { kind: "upstream_error", message },
          status: 502,
          conversation: conversationOf(request),
          problem: message,
        });
        await answer.send(request.dialect.error(502, message, "upstream_error"));
        return;
      }
      const res = answer.response;
      const contentType =
        upstreamResponse.headers.get("content-type") ?? "application/octet-stream";
      const retryAfter = upstreamResponse.headers.get("retry-after") ?? undefined;
      const recorded: RecordedResponse = {
        status: upstreamResponse.status,
        contentType,
        complete: false,
      };
      if (retryAfter !== undefined) recorded.retryAfter = retryAfter;
      answer.record({
        decision: { kind: "record", interaction: index, status: upstreamResponse.status },
        status: upstreamResponse.status,
        conversation: conversationOf(request),
      });
      const isStream = contentType.includes("text/event-stream") && upstreamResponse.body !== null;
      if (!isStream) {
        const text = await upstreamResponse.text().catch(() => "");
        recorded.body = text;
        recorded.complete = true;
        res.writeHead(upstreamResponse.status, {
          "content-type": contentType,
          ...(retryAfter === undefined ? {} : { "retry-after": retryAfter }),
        });
        res.end(text);
      } else {
        startStream(res, upstreamResponse.status);
        const reader = new SseReader();
        const events: SseEvent[] = [];
        const decoder = new TextDecoder();
        try {
          for await (const chunk of upstreamResponse.body as unknown as AsyncIterable<Uint8Array>) {
            if (!res.destroyed) res.write(chunk);
            events.push(...reader.push(decoder.decode(chunk, { stream: true })));
          }
          events.push(...reader.push(decoder.decode()), ...reader.end());
        } catch {
          // The upstream or the client went away: keep what arrived, marked incomplete.
        }
        recorded.events = events;
        recorded.complete = events.some((e) => dialect.isTerminal(e));
        res.end();
      }
      const interaction: Interaction = {
        index,
        fingerprint: fingerprint(summary),
        request: summary,
        response: recorded,
      };
      const side = sideOf(request);
      if (side !== undefined) interaction.side = side;
      cassette.interactions.push(interaction);
      cassette.interactions.sort((a, b) => a.index - b.index);
      save();
    },
    options,
    save,
  );
}

/**
 * Starts a replaying model server: each request is matched by fingerprint to the next unused
 * recorded interaction, whose response is streamed back. A request that matches none gets an
 * HTTP 400 whose message says which request it was and how it differs from the interaction
 * that was expected next; the journal records the same as a problem.
 *
 * @throws {@link InvalidCassette} naming the file when it is missing or not a cassette.
 * @throws {@link ServerStartFailed} when the port cannot be used.
 */
export async function startReplayModel(options: ReplayOptions): Promise<ScriptedModel> {
  const cassette = loadCassette(options.cassette);
  const patterns = toRegExps(cassette.volatile);
  const interactions = cassette.interactions.map((interaction) => ({
    interaction,
    fingerprint: fingerprint(interaction.request),
  }));
  const used = new Set<number>();

  const recordedDialect = cassette.dialect ?? "responses";
  let serial = 0;

  return serve(async (request, answer) => {
    if (request.dialect.name !== recordedDialect) {
      await refuseDialect(
        request,
        answer,
        `Cassette ${options.cassette} was recorded in the ${recordedDialect} dialect`,
      );
      return;
    }
    const summary = summarize(request, patterns);
    const wanted = fingerprint(summary);
    const found = interactions.find(
      (i) => !used.has(i.interaction.index) && i.fingerprint === wanted,
    );
    const conversation = conversationOf(request);
    const side = sideOf(request);
    if (found === undefined && side !== undefined) {
      // A side request the recording does not hold (a probe, a title): answer it plausibly.
      const neutral = neutralOf(request);
      const text = sideAnswer(side, neutral);
      const rendered = request.dialect.renderSide(text, {
        serial: ++serial,
        model: neutral?.model || request.route.model || "scripted",
        stream: neutral?.stream ?? false,
        inputTokens: estimateTokens(request.raw.toString("utf8")),
        request: neutral ?? emptyNeutral(request),
      });
      answer.record({
        decision: { kind: "side", purpose: side, text: text.text },
        status: rendered.status,
        conversation,
      });
      await answer.send(rendered);
      return;
    }
    if (found === undefined) {
      const number = answer.journal.nextIndex;
      const where =
        `request #${number} (${request.method} ${request.path}, turn ${conversation?.turn ?? "?"}, ` +
        `user message ${JSON.stringify(preview(conversation?.user ?? ""))})`;
      const why = explainMismatch(interactions, used, summary, wanted);
      const message =
        `Replay mismatch: ${where} matches no recorded interaction in cassette ${options.cassette}. ` +
        `${why}. If the conversation changed on purpose, record the cassette again.`;
      answer.record({
        decision: { kind: "replay_mismatch", message },
        status: 400,
        conversation,
        problem: message,
      });
      await answer.send(request.dialect.error(400, message, "replay_mismatch"));
      return;
    }
    used.add(found.interaction.index);
    const recorded = found.interaction.response;
    answer.record({
      decision:
        side === undefined
          ? { kind: "replay", interaction: found.interaction.index, status: recorded.status }
          : {
              kind: "side",
              purpose: side,
              text: `replayed interaction #${found.interaction.index}`,
            },
      status: recorded.status,
      conversation,
    });
    const res = answer.response;
    if (recorded.events !== undefined) {
      startStream(res, recorded.status);
      writeEvents(res, recorded.events);
      res.end();
      return;
    }
    res.writeHead(recorded.status, {
      "content-type": recorded.contentType,
      ...(recorded.retryAfter === undefined ? {} : { "retry-after": recorded.retryAfter }),
    });
    res.end(recorded.body ?? "");
  }, options);
}

function explainMismatch(
  interactions: { interaction: Interaction; fingerprint: string }[],
  used: Set<number>,
  summary: RequestSummary,
  wanted: string,
): string {
  const same = interactions.find((i) => i.fingerprint === wanted);
  if (same !== undefined) {
    return (
      `It equals interaction #${same.interaction.index}, which was already served; each recorded ` +
      `response is served once (the cassette holds ${interactions.length})`
    );
  }
  const unused = interactions.filter((i) => !used.has(i.interaction.index));
  const pool = unused.length > 0 ? unused : interactions;
  let closest: (typeof pool)[number] | undefined;
  let best = -1;
  for (const candidate of pool) {
    const score = sharedPrefix(candidate.interaction.request, summary);
    if (score > best) [closest, best] = [candidate, score];
  }
  if (closest === undefined) return "The cassette holds no interactions";
  const state = used.has(closest.interaction.index)
    ? `already served; all ${interactions.length} were`
    : "not yet served";
  return (
    `Closest recorded interaction: #${closest.interaction.index} (${state}); ` +
    describeDifferences(closest.interaction.request, summary).join("; ")
  );
}

/** How many leading conversation items two summaries share (model and tools count too). */
function sharedPrefix(a: RequestSummary, b: RequestSummary): number {
  let n = 0;
  while (
    n < a.input.length &&
    n < b.input.length &&
    canonicalJson(a.input[n]) === canonicalJson(b.input[n])
  ) {
    n += 1;
  }
  const sameSetup = a.model === b.model && canonicalJson(a.tools) === canonicalJson(b.tools);
  return n * 2 + (sameSetup ? 1 : 0);
}

function neutralOf(request: ModelRequest): NeutralRequest | null {
  if (request.json === undefined) return null;
  return request.dialect.read(request.json as Record<string, unknown>, request.route);
}

function emptyNeutral(request: ModelRequest): NeutralRequest {
  return emptyRequest(request.dialect.name, request.route.model ?? "");
}

function sideOf(request: ModelRequest): SidePurpose | undefined {
  if (request.route.kind === "side") return request.route.purpose;
  return neutralOf(request)?.side;
}

function summarize(request: ModelRequest, patterns: RegExp[]): RequestSummary {
  if (request.dialect.summarize !== undefined) {
    return request.dialect.summarize(request.path, request.json, patterns);
  }
  return summarizeNeutral(request.path, neutralOf(request) ?? emptyNeutral(request), patterns);
}

async function refuseDialect(request: ModelRequest, answer: Answer, what: string) {
  const message =
    `${what}; request #${answer.journal.nextIndex} (${request.method} ${request.path}) is a ` +
    `${request.dialect.name} request. Give the agent a provider of the recorded dialect, or ` +
    `record a cassette in this one.`;
  answer.record({
    decision: { kind: "rejected", status: 400, message },
    status: 400,
    conversation: conversationOf(request),
    problem: message,
  });
  await answer.send(request.dialect.error(400, message, "dialect_mismatch"));
}

function conversationOf(request: ModelRequest): JournalConversation | null {
  const neutral = neutralOf(request);
  return neutral === null ? null : journalConversation(neutral, []);
}
