import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { InvalidServerSpec } from "../errors.js";

/**
 * An MCP server started as a child process and spoken to over stdio.
 *
 * @example
 * ```ts
 * const server: StdioServer = {
 *   name: "shipping",
 *   command: process.execPath,
 *   args: ["shipping-server.mjs"],
 *   cwd: __dirname,
 * };
 * ```
 */
export interface StdioServer {
  /** How tests and tool policies name this server (`"shipping"` in `"shipping:shipping_quote"`). */
  readonly name: string;
  /** The program to run. Never interpreted by a shell. */
  readonly command: string;
  readonly args?: readonly string[];
  /**
   * Variables added to the server's environment. The server otherwise gets only a small
   * allow-list of the parent's (PATH, HOME, locale, temp dir), never the whole environment.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory; relative paths resolve against the kit's `cwd`. */
  readonly cwd?: string;
}

/** An MCP server already listening, spoken to over Streamable HTTP. */
export interface HttpServer {
  readonly name: string;
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  /** Headers sent with every request (e.g. authorization). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Any server the kit can talk to. */
export type ServerSpec = StdioServer | HttpServer;

/** A validated stdio spec with defaults applied. */
export interface ResolvedStdioServer {
  readonly kind: "stdio";
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
}

/** A validated HTTP spec with defaults applied. */
export interface ResolvedHttpServer {
  readonly kind: "http";
  readonly name: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
}

export type ResolvedServer = ResolvedStdioServer | ResolvedHttpServer;

const STDIO_KEYS = ["name", "command", "args", "env", "cwd"];
/** Portable across harnesses (Codex namespaces, TOML keys) and free of the allow-list's ':'. */
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const HTTP_KEYS = ["name", "url", "headers"];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string")
    return value === "" ? "an empty string" : `the string ${JSON.stringify(value)}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** Names a process environment can hold: no `=`, no NUL, not empty. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what must be refused
const ENV_NAME = /^[^=\u0000]+$/;
/** An HTTP header name (an RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Rejects a NUL byte, which no process argument or environment entry can carry. */
function noNul(label: string, field: string, value: string): void {
  if (value.includes("\u0000")) {
    throw new InvalidServerSpec(label, field, "contains a NUL byte, which no process can receive.");
  }
}

function stringMap(
  label: string,
  field: "env" | "headers",
  value: unknown,
): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) {
    throw new InvalidServerSpec(
      label,
      field,
      `must be an object of strings, got ${describe(value)}.`,
    );
  }
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== "string") {
      throw new InvalidServerSpec(
        label,
        `${field}.${key}`,
        `must be a string, got ${describe(entry)}.`,
      );
    }
    if (field === "env") {
      if (!ENV_NAME.test(key)) {
        throw new InvalidServerSpec(
          label,
          `env.${JSON.stringify(key)}`,
          "is not a valid environment variable name (it must be non-empty, without = or NUL).",
        );
      }
      noNul(label, `env.${key}`, entry);
    } else {
      if (!HEADER_NAME.test(key)) {
        throw new InvalidServerSpec(
          label,
          `headers.${JSON.stringify(key)}`,
          "is not a valid HTTP header name (letters, digits and !#$%&'*+.^_`|~-).",
        );
      }
      // eslint-disable-next-line no-control-regex -- CR, LF and NUL are what must be refused
      if (/[\r\n\u0000]/.test(entry)) {
        throw new InvalidServerSpec(
          label,
          `headers.${key}`,
          "contains CR, LF or NUL, which would split or corrupt the HTTP request.",
        );
      }
    }
  }
  return { ...(value as Record<string, string>) };
}

/**
 * Checks a server spec and applies defaults. Every problem names the server and the field.
 *
 * @param spec - What the test passed.
 * @param baseDir - Where relative `cwd` values resolve (the kit's `cwd`).
 * @throws {@link InvalidServerSpec} when a field is missing, of the wrong type, or unknown.
 */
export function resolveServer(spec: unknown, baseDir: string): ResolvedServer {
  if (!isRecord(spec)) {
    throw new InvalidServerSpec(
      "(unnamed)",
      "(spec)",
      `must be an object like { name, command } or { name, url }, got ${describe(spec)}.`,
    );
  }
  const name = spec.name;
  if (typeof name !== "string" || name.trim() === "") {
    throw new InvalidServerSpec(
      "(unnamed)",
      "name",
      `must be a non-empty string, got ${describe(name)}.`,
    );
  }
  const label = JSON.stringify(name);
  if (!SERVER_NAME.test(name)) {
    throw new InvalidServerSpec(
      label,
      "name",
      "may hold only letters, digits, '_', '.' and '-' (starting with a letter or digit): " +
        'it names the server in allow-list entries ("server:tool"), in harness configs and in tool namespaces.',
    );
  }
  const hasCommand = "command" in spec;
  const hasUrl = "url" in spec;
  if (hasCommand && hasUrl) {
    throw new InvalidServerSpec(
      label,
      "url",
      "cannot be given together with command: a server is either stdio (command) or Streamable HTTP (url).",
    );
  }
  if (!hasCommand && !hasUrl) {
    throw new InvalidServerSpec(
      label,
      "command",
      "is missing: give command (a stdio server) or url (a Streamable HTTP server).",
    );
  }
  const allowed = hasCommand ? STDIO_KEYS : HTTP_KEYS;
  for (const key of Object.keys(spec)) {
    if (!allowed.includes(key)) {
      throw new InvalidServerSpec(
        label,
        key,
        `is not a ${hasCommand ? "StdioServer" : "HttpServer"} field; the fields are ${allowed.join(", ")}.`,
      );
    }
  }
  if (hasCommand) {
    const { command, args, cwd } = spec;
    if (typeof command !== "string" || command.trim() === "") {
      throw new InvalidServerSpec(
        label,
        "command",
        `must be a non-empty string, got ${describe(command)}.`,
      );
    }
    if (args !== undefined && !Array.isArray(args)) {
      throw new InvalidServerSpec(
        label,
        "args",
        `must be an array of strings, got ${describe(args)}.`,
      );
    }
    noNul(label, "command", command);
    (args ?? []).forEach((arg: unknown, index: number) => {
      if (typeof arg !== "string") {
        throw new InvalidServerSpec(
          label,
          `args[${index}]`,
          `must be a string, got ${describe(arg)}.`,
        );
      }
      noNul(label, `args[${index}]`, arg);
    });
    if (cwd !== undefined && (typeof cwd !== "string" || cwd === "")) {
      throw new InvalidServerSpec(
        label,
        "cwd",
        `must be a non-empty string, got ${describe(cwd)}.`,
      );
    }
    const dir = cwd === undefined ? baseDir : isAbsolute(cwd) ? cwd : resolve(baseDir, cwd);
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir) {
      throw new InvalidServerSpec(
        label,
        "cwd",
        `names ${JSON.stringify(dir)}, which is not an existing directory.`,
      );
    }
    return {
      kind: "stdio",
      name,
      command,
      args: [...((args as string[] | undefined) ?? [])],
      env: stringMap(label, "env", spec.env),
      cwd: dir,
    };
  }
  const { url } = spec;
  if (typeof url !== "string" || url === "") {
    throw new InvalidServerSpec(label, "url", `must be a non-empty string, got ${describe(url)}.`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidServerSpec(label, "url", `is not a valid URL: ${JSON.stringify(url)}.`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new InvalidServerSpec(
      label,
      "url",
      `must be an http: or https: URL, got ${JSON.stringify(parsed.protocol)}.`,
    );
  }
  if (parsed.hostname === "") {
    throw new InvalidServerSpec(label, "url", `has no host: ${JSON.stringify(url)}.`);
  }
  return { kind: "http", name, url: parsed, headers: stringMap(label, "headers", spec.headers) };
}

/**
 * Resolves several specs for one session or capture, checking each and that no two share a
 * name.
 *
 * @throws {@link InvalidServerSpec} for a bad spec or a duplicate name.
 */
export function resolveServers(specs: readonly unknown[], baseDir: string): ResolvedServer[] {
  const resolved: ResolvedServer[] = [];
  for (const spec of specs) {
    const server = resolveServer(spec, baseDir);
    if (resolved.some((other) => other.name === server.name)) {
      throw new InvalidServerSpec(
        JSON.stringify(server.name),
        "name",
        "is used by two servers; names must be unique.",
      );
    }
    resolved.push(server);
  }
  return resolved;
}
