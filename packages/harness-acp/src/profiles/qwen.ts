import { dirname, join } from "node:path";
import { existsSync } from "node:fs";
import {
  agentNodeCacheEnvironment,
  agentNodeCandidates,
  fileIdentity,
  onAgentNode,
  readAgentPackage,
  testedRange,
  type FoundExecutable,
  type InstalledBinary,
} from "@jest-m3/core/adapter-kit";
import { agentEnvironment, writeSettings } from "../home.js";
import { resolveProfileOptions, type ResolvedCommonOptions } from "../options.js";
import type { AgentToolCall, SessionTools } from "../reported-calls.js";
import { identifyFlattened, type ToolIdentity, type ToolNaming } from "../tool-names.js";
import type { AcpProfile } from "./profile.js";
import { keyCredentials, profileExecutable, providerKey, refuseMcpToolNames } from "./lookup.js";

/** The Qwen Code versions this profile is tested with. */
export const QWEN_TESTED = testedRange("0.24.4", "0.25.0", "@qwen-code/qwen-code");

/** The configuration variable naming Qwen Code's script (`cli.js`) or an executable. */
export const QWEN_EXECUTABLE_VARIABLE = "M3_QWEN_EXECUTABLE";

/** The configuration variable naming the Node (≥ 22) to run Qwen Code's script on. */
export const QWEN_NODE_VARIABLE = "M3_QWEN_NODE";

/** The key variable Qwen Code's `openai` auth reads. */
const KEY_VARIABLE = "OPENAI_API_KEY";

/** Qwen Code's longest provider-safe tool name (its MAX_TOOL_NAME_LENGTH). */
const QWEN_NAME_LIMIT = 63;
const QWEN_SAFE_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** Qwen Code's stable hash of an unsafe name (FNV-1a, base 36, 7 characters). */
function qwenNameHash(name: string): string {
  let hash = 2166136261;
  for (let index = 0; index < name.length; index += 1) {
    hash = Math.imul(hash ^ name.charCodeAt(index), 16777619);
  }
  return (hash >>> 0).toString(36).padStart(7, "0");
}

/** Qwen Code 0.24's `normalizeToolNameForProvider`. */
function qwenValidName(name: string): string {
  if (name.length <= QWEN_NAME_LIMIT && QWEN_SAFE_NAME.test(name)) return name;
  const replaced = name.replace(/[^A-Za-z0-9_-]/g, "_");
  const sanitized = /^[A-Za-z]/.test(replaced) ? replaced : `tool_${replaced}`;
  const suffix = `_${qwenNameHash(name)}`;
  return `${sanitized.slice(0, QWEN_NAME_LIMIT - suffix.length)}${suffix}`;
}

/**
 * Qwen Code 0.24 (its `generateValidName`): `mcp__<server>__<tool>` as is when it is
 * provider-safe (a letter, then letters, digits, `_`, `-`; at most 63 characters), else
 * with other characters as `_`, cut, and a hash of the whole name appended. Names that
 * differ only after sanitising therefore stay distinct; `mcp__a__b__c` is both `a:b__c`
 * and `a__b:c`.
 */
export const qwenNaming: ToolNaming = {
  agent: "Qwen Code",
  rule:
    "mcp__<server>__<tool>, a name that is not a letter then letters, digits, _ and - (or over 63 " +
    "characters) sanitised and given a hash suffix",
  name: (server, tool) => qwenValidName(`mcp__${server}__${tool}`),
  prefix: (server) => `mcp__${server}__`,
};

/**
 * `~/.qwen/settings.json` of one session. The four defaults that keep a model from MCP
 * tools, each off: tool search (MCP tools deferred behind `tool_search`/`tool_call`), the
 * `auto` approval mode (an LLM classifier request per call), managed memory and follow-up
 * suggestions (side requests every turn); telemetry, usage statistics and updates off. Qwen
 * Code's own tools are registered only as `builtinTools` lists them (`tools.core`, whose
 * empty list would mean all of them, so no list is a name no tool has), and those run
 * without asking; every MCP tool asks, and the adapter answers from the allow-list (the
 * permission request is also where Qwen Code shows a call's arguments).
 */
export function qwenSettings(
  model: string,
  builtinTools: readonly string[],
): Record<string, unknown> {
  return {
    security: { auth: { selectedType: "openai" } },
    model: { name: model },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    tools: {
      toolSearch: { enabled: false },
      approvalMode: "default",
      core: builtinTools.length > 0 ? [...builtinTools] : ["m3_no_builtin_tools"],
    },
    memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
    ui: { enableFollowupSuggestions: false },
    permissions: { allow: [...builtinTools] },
  };
}

/**
 * Qwen Code's MCP identity of a call, from what the protocol says only: `_meta.toolName`
 * (the name the model called; Qwen Code's own tools never start with `mcp__`),
 * `_meta.provenance` (`mcp`) and `_meta.serverId` of its `tool_call` updates, or only the
 * name in a permission request. Not the `kind`: Qwen Code gives an MCP tool with a
 * read-only hint the kind `read`. The title is display text (a permission request's is the
 * arguments) and is never read.
 */
export function identifyQwenCall(
  call: AgentToolCall,
  { servers, policy }: SessionTools,
): ToolIdentity | undefined {
  const meta = (
    call as { _meta?: { toolName?: unknown; serverId?: unknown; provenance?: unknown } | null }
  )._meta;
  const name = typeof meta?.toolName === "string" ? meta.toolName : undefined;
  if (name === undefined || !name.startsWith("mcp__")) return undefined;
  if (meta?.provenance !== undefined && meta.provenance !== "mcp") return undefined;
  const serverId = typeof meta?.serverId === "string" ? meta.serverId : undefined;
  if (serverId !== undefined && servers.includes(serverId)) {
    const prefix = qwenNaming.prefix(serverId);
    if (name.startsWith(prefix) && name.length > prefix.length) {
      return { server: serverId, tool: name.slice(prefix.length) };
    }
    return identifyFlattened(qwenNaming, name, [serverId], policy);
  }
  return identifyFlattened(qwenNaming, name, servers, policy);
}

/** The script of an installed `@qwen-code/qwen-code` (`cli.js`, not the relaunching `cli-entry.js`). */
export function installedQwenScript(): InstalledBinary {
  const tried: string[] = [];
  for (const base of [process.cwd(), __dirname]) {
    try {
      const manifest = require.resolve(`${QWEN_TESTED.packageName}/package.json`, {
        paths: [base],
      });
      const script = join(dirname(manifest), "cli.js");
      if (existsSync(script)) return { path: script };
      tried.push(script);
    } catch {
      tried.push(`${QWEN_TESTED.packageName} from ${base} (not installed)`);
    }
  }
  return { tried: [...new Set(tried)] };
}

/** The Node Qwen Code's package needs (its `engines`), `22.0.0` when unreadable. */
export function qwenNodeMinimum(script: string): string {
  return readAgentPackage(script, (name) => name === QWEN_TESTED.packageName, "22.0.0").node.text;
}

/**
 * Qwen Code (`cli.js --acp`, \@qwen-code/qwen-code 0.24, a Gemini CLI fork) on a Node ≥ 22
 * found by the adapter kit (its `engines`; these tests' Node may be 20): the OpenAI
 * chat-completions dialect at `OPENAI_BASE_URL`, the settings of {@link qwenSettings}, MCP
 * discovery finished before `session/new` answers (`QWEN_CODE_LEGACY_MCP_BLOCKING`, so turn
 * 1 already offers the tools), no relaunch, stopped by closing stdin. Qwen Code passes its
 * whole environment to MCP servers; the session's servers are the wire capture's relays,
 * which start the real servers with the allow-listed environment only, so the provider key
 * never reaches them. Warm by default (one process per worker shared by sessions started
 * with the same plan, each its own ACP session; `warm: false`, and a session with
 * `builtinTools` unless it says `warm: true`, get one process per session).
 *
 * @example
 * ```ts
 * const [qwen] = kit.agents([
 *   { harness: "qwen-code", models: ["scripted-1"], provider: model.providerFor("chat-completions") },
 * ]);
 * ```
 */
export const qwenProfile: AcpProfile<ResolvedCommonOptions> = {
  name: "qwen-code",
  agent: "Qwen Code",
  dialects: ["chat-completions"],
  tested: QWEN_TESTED,
  elicitation: {
    status: "unsupported",
    reason:
      "Qwen Code 0.24 does not pass an MCP server's elicitation/create on over ACP, which this adapter would answer",
  },
  // Warm by default: its fault matrix passes every cell warm, the eight sessions at once on
  // one process (no limit of sessions a process needed).
  resolveOptions: (options) => resolveProfileOptions("qwen-code", options, { warm: true }),
  executable: profileExecutable(
    "Qwen Code",
    QWEN_EXECUTABLE_VARIABLE,
    QWEN_TESTED,
    "qwen",
    installedQwenScript,
  ),
  async runtime(executable: FoundExecutable, config) {
    const search = {
      agent: "Qwen Code",
      minimum: qwenNodeMinimum(executable.path),
      variable: QWEN_NODE_VARIABLE,
      installedBy: "@jest-m3/harness-acp",
    };
    return onAgentNode(executable, search, undefined, config, ["--expose-gc"]);
  },
  runtimeKey: (config) =>
    agentNodeCandidates({ variable: QWEN_NODE_VARIABLE }, config).map(fileIdentity),
  credentials: keyCredentials("Qwen Code", KEY_VARIABLE, "chat-completions"),
  async plan({ launch, home, options }) {
    refuseMcpToolNames(
      "qwen-code",
      "Qwen Code",
      "mcp__",
      "read_file, run_shell_command",
      options.builtinTools,
    );
    await writeSettings(
      join(home.home, ".qwen"),
      "settings.json",
      qwenSettings(launch.model, options.builtinTools),
    );
    const extra: Record<string, string> = {
      // Qwen Code runs on Node 22: its compiled code is kept for the next start.
      ...agentNodeCacheEnvironment(launch.env),
      QWEN_CODE_NO_RELAUNCH: "true",
      QWEN_CODE_LEGACY_MCP_BLOCKING: "1",
      OPENAI_MODEL: launch.model,
      NO_COLOR: "1",
    };
    if (launch.provider) extra.OPENAI_BASE_URL = launch.provider.baseUrl;
    return {
      args: ["--acp", "--approval-mode", "default"],
      env: agentEnvironment(launch.env, home, { ...extra, ...providerKey(launch, KEY_VARIABLE) }),
    };
  },
  stop: () => "stdin",
  naming: qwenNaming,
  identify: identifyQwenCall,
};
