/**
 * The options of a web server the kit starts for the tests (`startWebServer` in
 * `@jest-m3/core`, `webServers` in jest-m3's configuration), and their one check.
 */
import { z } from "zod";
import { checkInput } from "./check-input.js";
import { httpUrl, must, nonEmptyString, positiveMs, processString, strictFields } from "./rules.js";

/**
 * What {@link startWebServer} starts and waits for.
 *
 * @example
 * ```ts
 * const options: WebServerOptions = {
 *   command: process.execPath,
 *   args: ["server.mjs", "--http", "--port", "8931"],
 *   url: "http://127.0.0.1:8931/mcp",
 * };
 * ```
 */
export interface WebServerOptions {
  /** A label for messages; default: the command's file name. */
  readonly name?: string;
  /** The program to run (no shell: give its arguments in `args`). */
  readonly command: string;
  readonly args?: readonly string[];
  /**
   * The URL that answers once the server is up. Any HTTP answer below 500 counts (an MCP
   * endpoint answers a plain GET with 400, 405 or 406).
   */
  readonly url: string;
  /** How long the server gets to answer, in ms (default 60 000). */
  readonly timeoutMs?: number;
  /**
   * Variables for the server, added to the kit's allow-listed environment (PATH, locale,
   * temp dir): the server never inherits the whole environment, credentials included.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** The server's working directory (default: the current one). */
  readonly cwd?: string;
  /**
   * When something already answers at `url`: use it and start nothing (`true`), or refuse
   * (`false`, the default: a stale server from another run would otherwise be tested).
   */
  readonly reuseExisting?: boolean;
}

const webServerOptionsSchema = strictFields(
  {
    name: nonEmptyString().optional(),
    command: nonEmptyString("a program to run, such as process.execPath").pipe(processString),
    args: z.array(processString, must("an array of strings")).optional(),
    url: httpUrl,
    timeoutMs: positiveMs.optional(),
    env: z.record(z.string(), processString, must("an object of strings")).optional(),
    cwd: nonEmptyString().optional(),
    reuseExisting: z.boolean(must("true or false")).optional(),
  },
  { unknown: "is not a web server option", listed: "the options are" },
);

/**
 * Checks web server options before anything starts: `refuse` gets the field at fault
 * (`args[1]`, or "" for the whole value) and what is wrong with it.
 *
 * @example
 * ```ts
 * const options = checkWebServerOptions(raw, (field, problem) => new Error(`${field} ${problem}`));
 * ```
 */
export function checkWebServerOptions(
  value: unknown,
  refuse: (field: string, problem: string) => Error,
): WebServerOptions {
  checkInput(webServerOptionsSchema, value, (problem) => refuse(problem.field, problem.problem));
  return value as WebServerOptions;
}
