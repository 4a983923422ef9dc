import type { Trace, TraceMessage } from "./trace.js";

/**
 * One `elicitation/create` the server sent, and how the client answered, read from the
 * wire messages of a trace. Works on a direct client's trace and on an agent session's.
 */
export interface Elicitation {
  readonly server: string;
  readonly connection: string;
  /** The turn that was open, or `null` outside agent turns. */
  readonly turnId: string | null;
  readonly mode: "form" | "url";
  readonly message: string;
  /** Form mode: the schema the server asked to be filled. */
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
  /** URL mode: the page the user was sent to. */
  readonly url?: string;
  /**
   * `accept`, `decline`, `cancel` as answered; `error` when the client answered with a
   * JSON-RPC error; `pending` while no answer was observed.
   */
  readonly action: "accept" | "decline" | "cancel" | "error" | "pending";
  /** The accepted content, when there was any. */
  readonly content?: Readonly<Record<string, unknown>>;
  /** The error the client answered with, for `error`. */
  readonly error?: string;
  /** When the request was observed. */
  readonly at: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Every elicitation in a trace (or in the trace of a result or a direct client), in order.
 *
 * @example
 * ```ts
 * const [first] = elicitationsOf(client.trace);
 * expect(first?.action).toBe("accept");
 * ```
 */
export function elicitationsOf(subject: Trace | { readonly trace: Trace }): Elicitation[] {
  const trace: Trace = "messages" in subject ? subject : subject.trace;
  const found: Array<{ request: TraceMessage; answer?: TraceMessage }> = [];
  const pending = new Map<string, { request: TraceMessage; answer?: TraceMessage }>();
  for (const entry of trace.messages) {
    const message = entry.message as Record<string, unknown> | undefined;
    if (!message) continue;
    const id = message.id;
    if (typeof id !== "string" && typeof id !== "number") continue;
    const key = `${entry.connection}\u0000${typeof id}:${String(id)}`;
    if (entry.direction === "from_server" && message.method === "elicitation/create") {
      const record = { request: entry };
      found.push(record);
      pending.set(key, record);
    } else if (entry.direction === "to_server" && !("method" in message)) {
      const record = pending.get(key);
      if (record) {
        record.answer = entry;
        pending.delete(key);
      }
    }
  }
  return found.map(({ request, answer }) => {
    const sent = request.message as Record<string, unknown> | undefined;
    const params = sent && isRecord(sent.params) ? sent.params : {};
    const mode = params.mode === "url" ? "url" : "form";
    const reply = answer?.message as Record<string, unknown> | undefined;
    let action: Elicitation["action"] = "pending";
    let content: Record<string, unknown> | undefined;
    let error: string | undefined;
    if (reply && isRecord(reply.error)) {
      action = "error";
      error = String(reply.error.message);
    } else if (reply && isRecord(reply.result)) {
      const answered = reply.result.action;
      action =
        answered === "accept" || answered === "decline" || answered === "cancel"
          ? answered
          : "error";
      if (isRecord(reply.result.content)) content = reply.result.content;
    }
    return {
      server: request.server,
      connection: request.connection,
      turnId: request.turnId,
      mode,
      message: typeof params.message === "string" ? params.message : "",
      ...(isRecord(params.requestedSchema) ? { requestedSchema: params.requestedSchema } : {}),
      ...(typeof params.url === "string" ? { url: params.url } : {}),
      action,
      ...(content ? { content } : {}),
      ...(error !== undefined ? { error } : {}),
      at: request.at,
    };
  });
}

/**
 * What `toHaveElicitation` looks for; every given field must match.
 *
 * @example
 * ```ts
 * expect(client).toHaveElicitation({ message: /address/, action: "accept", count: 1 });
 * ```
 */
export interface ElicitationQuery {
  /** A substring of the message, a pattern, or any value Jest's equality accepts. */
  readonly message?: unknown;
  readonly mode?: "form" | "url";
  readonly action?: Elicitation["action"];
  /** The accepted content (Jest equality, so asymmetric matchers work). */
  readonly content?: unknown;
  readonly server?: string;
  /**
   * Only elicitations during this turn of an agent session: a `TurnResult` (what
   * `send()` returned) or its `turnId`.
   */
  readonly turn?: string | { readonly snapshot: { readonly turnId: string } };
  /** Exactly this many matching elicitations (default: at least one). */
  readonly count?: number;
}

/**
 * Whether `elicitation` fits `query`; `equals` is the test runner's deep equality (so
 * asymmetric matchers work).
 *
 * @example
 * ```ts
 * const accepted = elicitationsOf(trace).filter((entry) => elicitationMatchesQuery(entry, { action: "accept" }, isDeepStrictEqual));
 * ```
 */
export function elicitationMatchesQuery(
  elicitation: Elicitation,
  query: ElicitationQuery,
  equals: (a: unknown, b: unknown) => boolean,
): boolean {
  if (query.server !== undefined && elicitation.server !== query.server) return false;
  if (query.turn !== undefined) {
    const turnId = typeof query.turn === "string" ? query.turn : query.turn.snapshot.turnId;
    if (elicitation.turnId !== turnId) return false;
  }
  if (query.mode !== undefined && elicitation.mode !== query.mode) return false;
  if (query.action !== undefined && elicitation.action !== query.action) return false;
  if (query.message !== undefined) {
    const expected = query.message;
    const ok =
      typeof expected === "string"
        ? elicitation.message.includes(expected)
        : expected instanceof RegExp
          ? expected.test(elicitation.message)
          : equals(elicitation.message, expected);
    if (!ok) return false;
  }
  if (query.content !== undefined && !equals(elicitation.content, query.content)) return false;
  return true;
}
