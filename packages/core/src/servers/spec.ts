import { statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { InvalidServerSpec } from "../errors.js";
import { checkInput, type InputProblem } from "../validation/check-input.js";
import { httpUrl, must, nonEmptyString, processString, strictFields } from "../validation/rules.js";

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
  /**
   * Working directory; relative paths resolve against the kit's `cwd`. `"workspace"` starts
   * the server in the agent session's workspace, so the server and the agent see the same files.
   */
  readonly cwd?: string;
}

/** The `cwd` of a stdio server that starts in its session's workspace. */
export const WORKSPACE_CWD = "workspace";

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
  /** Set for `cwd: "workspace"`: `cwd` is the session's workspace, bound when it opens. */
  readonly inWorkspace?: true;
}

/** A validated HTTP spec with defaults applied. */
export interface ResolvedHttpServer {
  readonly kind: "http";
  readonly name: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
}

export type ResolvedServer = ResolvedStdioServer | ResolvedHttpServer;

/** Portable across harnesses (Codex namespaces, TOML keys) and free of the allow-list's ':'. */
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** Names a process environment can hold: no `=`, no NUL, not empty. */
// eslint-disable-next-line no-control-regex -- NUL is exactly what must be refused
const ENV_NAME = /^[^=\u0000]+$/;
/** An HTTP header name (an RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// eslint-disable-next-line no-control-regex -- CR, LF and NUL are what must be refused
const HEADER_BREAK = /[\r\n\u0000]/;

const serverName = nonEmptyString().refine(
  (name) => SERVER_NAME.test(name),
  "may hold only letters, digits, '_', '.' and '-' (starting with a letter or digit): " +
    'it names the server in allow-list entries ("server:tool"), in harness configs and in tool namespaces.',
);

/** What every spec has, and the one rule between its kinds: `command` or `url`, not both. */
const serverKindSchema = z
  .looseObject({ name: serverName }, must("an object like { name, command } or { name, url }"))
  .superRefine((spec, context) => {
    const hasCommand = "command" in spec;
    const hasUrl = "url" in spec;
    if (hasCommand && hasUrl) {
      context.addIssue({
        code: "custom",
        path: ["url"],
        message:
          "cannot be given together with command: a server is either stdio (command) or Streamable HTTP (url).",
      });
    } else if (!hasCommand && !hasUrl) {
      context.addIssue({
        code: "custom",
        path: ["command"],
        message: "is missing: give command (a stdio server) or url (a Streamable HTTP server).",
      });
    }
  });

/** A refinement of a record: each of its names that `pattern` does not match is an issue. */
function namesMatching(pattern: RegExp, message: string) {
  return (record: Readonly<Record<string, string>>, context: z.RefinementCtx): void => {
    for (const name of Object.keys(record)) {
      if (!pattern.test(name)) context.addIssue({ code: "custom", path: [name], message });
    }
  };
}

/** `env` of a stdio spec: variable names a process can hold, values without NUL. */
const environmentSchema = z
  .record(z.string(), z.string(must("a string")).pipe(processString), must("an object of strings"))
  .superRefine(
    namesMatching(
      ENV_NAME,
      "is not a valid environment variable name (it must be non-empty, without = or NUL).",
    ),
  );

/** `headers` of an HTTP spec: token names, values that cannot split the request. */
const headersSchema = z
  .record(
    z.string(),
    z
      .string(must("a string"))
      .refine(
        (value) => !HEADER_BREAK.test(value),
        "contains CR, LF or NUL, which would split or corrupt the HTTP request.",
      ),
    must("an object of strings"),
  )
  .superRefine(
    namesMatching(
      HEADER_NAME,
      "is not a valid HTTP header name (letters, digits and !#$%&'*+.^_`|~-).",
    ),
  );

/** The schema of a {@link StdioServer}. */
export const stdioServerSchema = strictFields(
  {
    name: serverName,
    command: nonEmptyString().pipe(processString),
    args: z
      .array(z.string(must("a string")).pipe(processString), must("an array of strings"))
      .optional(),
    env: environmentSchema.optional(),
    cwd: nonEmptyString().optional(),
  },
  { unknown: "is not a StdioServer field", listed: "the fields are" },
);

/** The schema of an {@link HttpServer}. */
export const httpServerSchema = strictFields(
  {
    name: serverName,
    url: httpUrl,
    headers: headersSchema.optional(),
  },
  { unknown: "is not a HttpServer field", listed: "the fields are" },
);

/**
 * Checks a server spec and applies defaults. Every problem names the server and the field.
 *
 * @param spec - What the test passed.
 * @param baseDir - Where relative `cwd` values resolve (the kit's `cwd`).
 * @param at - Where the spec sits in the caller's input (`servers[1]`), to prefix fields with.
 * @throws {@link InvalidServerSpec} when a field is missing, of the wrong type, or unknown.
 */
export function resolveServer(
  spec: unknown,
  baseDir: string,
  at?: string,
  options: { readonly workspace?: boolean } = {},
): ResolvedServer {
  const named = (spec as { name?: unknown } | null)?.name;
  const refuse = (problem: InputProblem): InvalidServerSpec =>
    new InvalidServerSpec(
      typeof named === "string" && named.trim() !== "" ? JSON.stringify(named) : "(unnamed)",
      fieldAt(at, problem.field),
      problem.problem,
    );
  checkInput(serverKindSchema, spec, refuse);
  if ("command" in (spec as object)) {
    const stdio = checkInput(stdioServerSchema, spec, refuse);
    if (stdio.cwd === WORKSPACE_CWD) {
      if (!options.workspace) {
        throw new InvalidServerSpec(
          JSON.stringify(stdio.name),
          fieldAt(at, "cwd"),
          'is "workspace", which only an agent session has (agent.session({ server, workspace })); give a directory here.',
        );
      }
      const { name, command } = stdio;
      const args = stdio.args ?? [];
      const env = stdio.env ?? {};
      return { kind: "stdio", name, command, args, env, cwd: baseDir, inWorkspace: true };
    }
    // The one check against the disk, after the shape is right.
    const dir =
      stdio.cwd === undefined
        ? baseDir
        : isAbsolute(stdio.cwd)
          ? stdio.cwd
          : resolve(baseDir, stdio.cwd);
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir) {
      throw new InvalidServerSpec(
        JSON.stringify(stdio.name),
        fieldAt(at, "cwd"),
        `names ${JSON.stringify(dir)}, which is not an existing directory.`,
      );
    }
    return {
      kind: "stdio",
      name: stdio.name,
      command: stdio.command,
      args: stdio.args ?? [],
      env: stdio.env ?? {},
      cwd: dir,
    };
  }
  const http = checkInput(httpServerSchema, spec, refuse);
  return { kind: "http", name: http.name, url: http.url, headers: http.headers ?? {} };
}

/** `servers[1].env.PATH`: a field inside the spec, from the caller's input's root. */
function fieldAt(at: string | undefined, field: string): string {
  if (at === undefined) return field === "" ? "(spec)" : field;
  return field === "" ? at : field.startsWith("[") ? `${at}${field}` : `${at}.${field}`;
}

/**
 * Resolves several specs for one session or capture, checking each and that no two share a
 * name.
 *
 * @param at - Where each spec sits in the caller's input: `servers[i]` unless given (a
 * session's single `server` passes `() => "server"`).
 * @throws {@link InvalidServerSpec} for a bad spec or a duplicate name.
 */
export function resolveServers(
  specs: readonly unknown[],
  baseDir: string,
  at: (index: number) => string = (index) => `servers[${index}]`,
  options: { readonly workspace?: boolean } = {},
): ResolvedServer[] {
  const resolved: ResolvedServer[] = [];
  for (const [index, spec] of specs.entries()) {
    const server = resolveServer(spec, baseDir, at(index), options);
    if (resolved.some((other) => other.name === server.name)) {
      throw new InvalidServerSpec(
        JSON.stringify(server.name),
        `${at(index)}.name`,
        "is used by two servers; names must be unique.",
      );
    }
    resolved.push(server);
  }
  return resolved;
}

/**
 * The servers of a session with `cwd: "workspace"` bound to the session's workspace folder
 * (the agent's working directory), once it exists.
 */
export function bindWorkspace(
  servers: readonly ResolvedServer[],
  workspace: string,
): ResolvedServer[] {
  return servers.map((server) =>
    server.kind === "stdio" && server.inWorkspace ? { ...server, cwd: workspace } : server,
  );
}
