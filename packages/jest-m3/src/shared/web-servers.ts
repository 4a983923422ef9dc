/**
 * `webServers` in m3.config.json: server commands global setup starts once for the run, the
 * way Playwright Test's `webServer` does, and stops at its end. Tests read each one's URL
 * with `webServerUrl(name)`.
 */
import { resolve } from "node:path";
import { checkWebServerOptions, type WebServerOptions } from "@jest-m3/core/validation";

/** One configured web server: {@link WebServerOptions} with a name the tests ask for. */
export interface WebServerEntry extends WebServerOptions {
  readonly name: string;
}

/**
 * Checks `webServers` (an array of `{ name, command, args?, url, timeoutMs?, env?, cwd?,
 * reuseExisting? }`, names unique) and resolves each `cwd` against `rootDir`. `refuse` gets
 * the key at fault (`webServers[1].url`) and the problem.
 */
export function parseWebServers(
  raw: unknown,
  rootDir: string,
  refuse: (key: string, problem: string) => Error,
): WebServerEntry[] {
  if (!Array.isArray(raw))
    throw refuse(
      "webServers",
      'must be an array like [{ "name": "catalogue", "command": "node", "args": ["server.mjs"], "url": "http://127.0.0.1:8931/mcp" }].',
    );
  const names = new Set<string>();
  return raw.map((entry: unknown, index) => {
    const key = `webServers[${index}]`;
    const name = (entry as { name?: unknown } | null)?.name;
    if (typeof name !== "string" || name.trim() === "")
      throw refuse(
        `${key}.name`,
        "must be a non-empty string: the name tests pass to webServerUrl().",
      );
    if (names.has(name))
      throw refuse(`${key}.name`, `repeats "${name}": each web server needs its own name.`);
    names.add(name);
    const options = checkWebServerOptions(entry, (field, problem) =>
      refuse(field ? `${key}.${field}` : key, problem),
    );
    return {
      ...options,
      name,
      ...(options.cwd !== undefined ? { cwd: resolve(rootDir, options.cwd) } : {}),
    };
  });
}
