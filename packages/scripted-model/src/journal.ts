/**
 * The journal: every request the model server received, with the decision it took.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve as resolvePath } from "node:path";
import type { Decision } from "./decision";
import type { ProviderDialect } from "./dialects/dialect";
import { ScriptedModelProblems } from "./errors";
import type { ScriptedUsage, ToolResult } from "./script";

/** What the server read from a request's conversation. */
export interface JournalConversation {
  /** The turn number (how many user messages the conversation holds). */
  turn: number;
  /** The latest user message. */
  user: string;
  /** The tool results that arrived since the latest user message. */
  turnResults: ToolResult[];
  /** The MCP tools the request offers, as `server:tool`. */
  offeredTools: string[];
  /** Whether the request offers the `tool_search` tool. */
  toolSearch: boolean;
}

/** One request and how it was answered. */
export interface JournalEntry {
  /** 1-based position in the journal ("request #3" in messages). */
  index: number;
  /** When the request arrived (ISO 8601). */
  at: string;
  method: string;
  /** The request path, e.g. `/v1/responses`. */
  path: string;
  /** The dialect whose route the request took, or `null` for a path no dialect serves. */
  dialect: ProviderDialect | null;
  /**
   * Whether it is a side request (a title, routing, summary, token count, probe or model list),
   * answered with something plausible that no rule mentions; its decision is `side`.
   */
  side: boolean;
  /** The request headers; credentials (`authorization`, `api-key`, cookies) are redacted. */
  headers: Record<string, string>;
  /** The request body parsed as JSON, or the raw text when it is not JSON. */
  body: unknown;
  /** What the server read from the conversation (`null` for requests without one). */
  conversation: JournalConversation | null;
  /** The answer the server chose. */
  decision: Decision;
  /** The HTTP status sent. */
  status: number;
  /** Milliseconds the answer was delayed on purpose (delay steps). */
  delayMs: number;
  /** Set when the answer is not what the script or cassette intended. */
  problem?: string;
  /**
   * The usage the answer reported as the script set it (a step's `usage`, or the script's);
   * absent when the answer reported an estimate, or the answer carries no usage (an error).
   */
  usage?: ScriptedUsage;
}

/**
 * The path a test runner on loopback POSTs `{ "secrets": [{ "name", "value" }] }` to, so the
 * journal hides those values (a credential an MCP server echoed into a tool result the agent
 * sends back). Answered 204; never journaled; nothing reads the values back.
 */
export const JOURNAL_SECRETS_PATH = "/_journal/secrets";

/** Values shorter than this are not hidden: they would hide ordinary words. */
const MIN_SECRET_LENGTH = 6;

/** Every request a model server received, in arrival order. */
export class Journal {
  private readonly list: JournalEntry[] = [];
  /** Secret value → the name shown in its place. */
  private readonly secretNames = new Map<string, string>();

  /** The entries so far (a live, read-only view). */
  get entries(): readonly JournalEntry[] {
    return this.list;
  }

  /** The decisions of the main requests so far (side requests left out), in order. */
  get decisions(): Decision[] {
    return this.list.filter((entry) => !entry.side).map((entry) => entry.decision);
  }

  /** One line per entry that has a problem, each naming its request. */
  get problems(): string[] {
    return this.list
      .filter((entry) => entry.problem !== undefined)
      .map((entry) => `request #${entry.index} (${entry.method} ${entry.path}): ${entry.problem}`);
  }

  /**
   * Throws {@link ScriptedModelProblems} when any request got an unintended answer (no rule
   * matched, a tool was not offered, a template value was missing, a replay diverged, …).
   */
  assertNoProblems(): void {
    const problems = this.problems;
    if (problems.length > 0) throw new ScriptedModelProblems(problems);
  }

  /**
   * Hides `value` wherever it appears in what the journal gives out ({@link toJSON},
   * {@link writeTo}, {@link scrub}) as `<redacted:NAME>`. Values under 6 characters are ignored.
   *
   * @example
   * ```ts
   * model.journal.addSecret("MY_API_KEY", process.env.MY_API_KEY ?? "");
   * ```
   */
  addSecret(name: string, value: string): void {
    if (typeof value === "string" && value.length >= MIN_SECRET_LENGTH) {
      this.secretNames.set(value, name);
    }
  }

  /** `value` with every secret given to {@link addSecret} replaced in each string, at any depth. */
  scrub<T>(value: T): T {
    if (this.secretNames.size === 0) return value;
    const secrets = [...this.secretNames].sort((a, b) => b[0].length - a[0].length);
    const walk = (item: unknown): unknown => {
      if (typeof item === "string") {
        let out = item;
        for (const [secret, name] of secrets) {
          if (out.includes(secret)) out = out.split(secret).join(`<redacted:${name}>`);
        }
        return out;
      }
      if (Array.isArray(item)) return item.map(walk);
      if (typeof item === "object" && item !== null) {
        return Object.fromEntries(
          Object.entries(item).map(([key, entry]) => [walk(key) as string, walk(entry)]),
        );
      }
      return item;
    };
    return walk(value) as T;
  }

  /** The journal as JSON-ready data (secret values hidden, see {@link addSecret}). */
  toJSON(): { entries: JournalEntry[] } {
    return { entries: this.scrub([...this.list]) };
  }

  /** Writes the journal as pretty-printed JSON to `file` (its folder is created if needed). */
  writeTo(file: string): void {
    const path = resolvePath(file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(this.toJSON(), null, 2)}\n`);
  }

  /** Adds an entry; the server calls this. @internal */
  add(entry: Omit<JournalEntry, "index">): JournalEntry {
    const full: JournalEntry = { index: this.list.length + 1, ...entry };
    if (full.problem === undefined) delete full.problem;
    this.list.push(full);
    return full;
  }

  /** The index the next entry will get. @internal */
  get nextIndex(): number {
    return this.list.length + 1;
  }
}

const SECRET_HEADERS =
  /^(authorization|proxy-authorization|api-key|x-api-key|x-goog-api-key|cookie|set-cookie)$/i;

/** Copies request headers, redacting credentials. @internal */
export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(", ") : value;
    if (SECRET_HEADERS.test(name)) {
      const scheme = /^(\w+)\s/.exec(text);
      out[name] = scheme ? `${scheme[1]} <redacted>` : "<redacted>";
    } else {
      out[name] = text;
    }
  }
  return out;
}
