/**
 * Where a planted secret could have leaked: the files of the kit's temporary folders (an
 * agent's home, its configuration, its logs) and what an MCP server saw in its environment
 * (the env server's log).
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentSelectionInput, MCPTestKit, ModelProvider } from "@jest-m3/core";
import { envServer, startHttpShipping } from "./servers";

/**
 * Every file under `dir` (symbolic links not followed) that contains one of `needles`; none
 * when `dir` is gone.
 */
export function filesContaining(dir: string, needles: string | readonly string[]): string[] {
  const wanted = typeof needles === "string" ? [needles] : needles;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat || stat.isSymbolicLink()) continue;
    if (stat.isDirectory()) found.push(...filesContaining(path, wanted));
    else if (stat.isFile()) {
      const bytes = readFileSync(path);
      if (wanted.some((needle) => bytes.includes(needle))) found.push(path);
    }
  }
  return found;
}

/** The temporary folders the kit made so far (removed when it closes). */
export function kitTempDirs(kit: MCPTestKit): string[] {
  return [...(kit as unknown as { tempDirs: string[] }).tempDirs];
}

/** One JSON object a line: what the env server saw of each variable it was asked about. */
export function envLogEntries(file: string): Record<string, string | null>[] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, string | null>);
}

/** The three values a planted-secret test plants, made from a tag (`kilo` → `…-kilo-…`). */
export interface PlantedSecrets {
  /** The provider's key, read by the kit from the parent variable {@link variable}. */
  readonly key: string;
  /** An HTTP server's authorization header value. */
  readonly header: string;
  /** A secret in the stdio server's environment (SHIPPING_TOKEN). */
  readonly serverSecret: string;
  /** The parent variable the key is planted in (`M3_PLANTED_<TAG>_KEY`). */
  readonly variable: string;
}

/** The planted values for `tag`; each names its tag, so a leak says whose it is. */
export function plantedSecrets(tag: string): PlantedSecrets {
  return {
    key: `sk-m3-planted-${tag}-key-5d19a0`,
    header: `m3-planted-${tag}-header-77e2c4`,
    serverSecret: `m3-planted-${tag}-server-secret-3b8f61`,
    variable: `M3_PLANTED_${tag.toUpperCase().replace(/\W/g, "_")}_KEY`,
  };
}

/** How {@link expectSecretsKept} runs its session. */
export interface SecretsScanOptions {
  /** The kit (the caller closes it). */
  readonly kit: MCPTestKit;
  /** The agent: the scan adds the key (`envKey` SCRIPTED_API_KEY, planted by credentialEnv). */
  readonly agent: AgentSelectionInput & { readonly provider: ModelProvider };
  /** The tag of the planted values ({@link plantedSecrets}). */
  readonly tag: string;
  /** The variables the stdio server reports seeing (their values must not be the key). */
  readonly reported: readonly string[];
  /** The prompt; the model must call shipping_quote on `shipping` and then on `local`. */
  readonly prompt: string;
  /** The turn's calls as [server, status, evidence]; default both successful, evidence "both". */
  readonly calls?: readonly (readonly [string, string, string])[];
  /** The session's timeout; default 90 s. */
  readonly timeout?: number;
  /** More checks while the session is still open, after the turn. */
  readonly whileOpen?: () => void;
}

/**
 * The planted-secret scan: a session on the shipping server over Streamable HTTP (with an
 * authorization header) and the env server `local` over stdio (with a secret in its
 * environment), the provider's key given through credentialEnv, one turn calling both. While
 * the session is open no file of the kit's temporary folders holds any of the values; after
 * it, neither the result nor the trace does. Returns what the stdio server saw of
 * `reported` (at least one entry), for the caller's check of it ({@link expectNoValues}).
 */
export async function expectSecretsKept(
  options: SecretsScanOptions,
): Promise<Record<string, string | null>[]> {
  const { kit, tag } = options;
  const secrets = plantedSecrets(tag);
  process.env[secrets.variable] = secrets.key;
  const http = await startHttpShipping();
  try {
    const envLog = join(await kit.tempDir("m3-log-"), "env.jsonl");
    const [agent] = kit.agents([
      {
        ...options.agent,
        provider: { ...options.agent.provider, envKey: "SCRIPTED_API_KEY" },
        credentialEnv: { SCRIPTED_API_KEY: secrets.variable },
      },
    ]);
    const reporter = envServer(envLog, options.reported);
    const session = agent!.session({
      servers: [
        { name: "shipping", url: http.url, headers: { authorization: `Bearer ${secrets.header}` } },
        {
          ...reporter,
          name: "local",
          env: { ...reporter.env, SHIPPING_TOKEN: secrets.serverSecret },
        },
      ],
      timeout: options.timeout ?? 90_000,
    });
    const needles = [secrets.key, secrets.header, secrets.serverSecret];
    {
      await using open = await session.open();
      const turn = await open.send(options.prompt);
      expect(turn.snapshot.outcome).toBe("completed");
      expect(turn.toolCalls.map((call) => [call.server, call.status, call.evidence])).toEqual(
        options.calls ?? [
          ["shipping", "success", "both"],
          ["local", "success", "both"],
        ],
      );
      options.whileOpen?.();
      // While the session is open: every file of the kit's temporary folders.
      const dirs = kitTempDirs(kit);
      expect(dirs.length).toBeGreaterThan(2);
      expect(dirs.flatMap((dir) => filesContaining(dir, needles))).toEqual([]);
    }
    const everything = JSON.stringify([session.result, session.result.trace]);
    for (const needle of needles) expect(everything).not.toContain(needle);
    const seen = envLogEntries(envLog);
    expect(seen.length).toBeGreaterThan(0);
    return seen;
  } finally {
    await http.stop();
    delete process.env[secrets.variable];
  }
}

/**
 * Asserts no variable the env server reported had a value: each was absent (core's relay
 * passes a server only the allow-listed environment and its spec's variables) or blanked.
 */
export function expectNoValues(seen: readonly Record<string, string | null>[]): void {
  expect(seen.length).toBeGreaterThan(0);
  for (const entry of seen) {
    for (const [name, value] of Object.entries(entry))
      expect([name, value ?? ""]).toEqual([name, ""]);
  }
}
