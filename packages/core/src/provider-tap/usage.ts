/**
 * Adding up the model side: the usage of a turn or a session from its model requests, the
 * cost of that usage from a price table the user gives, and what each server's tool
 * catalog costs in the context an agent sends its model.
 */
import { isUnavailable, unavailable, type Unavailable } from "../evidence/unavailable.js";
import { toolCatalogs } from "../evidence/catalogs.js";
import type { ExecutionResult } from "../evidence/results.js";
import type { ModelRequest, OfferedModelTool, TokenUsage } from "./records.js";

const addOptional = (a: number | Unavailable, b: number | Unavailable): number | Unavailable =>
  isUnavailable(a) ? a : isUnavailable(b) ? b : a + b;

/**
 * Whether a request counts in a sum of usage: a generation the provider answered. An error
 * answer (a 429, a 500) reports no usage and is not billed; a token count or a model list
 * generates nothing.
 */
export function countsInUsage(request: ModelRequest): boolean {
  return request.generation && (request.status === null || request.status < 400);
}

/**
 * The usage `requests` add up to (the generations the provider answered, see
 * {@link countsInUsage}). {@link Unavailable} when there were none, or when one of them has
 * no usage (a sum that leaves a request out would be too low, silently).
 *
 * @example
 * ```ts
 * const usage = usageOf(turn.modelRequests ?? [], "no model request crossed the provider tap");
 * ```
 */
export function usageOf(all: readonly ModelRequest[], none: string): TokenUsage | Unavailable {
  const requests = all.filter(countsInUsage);
  if (requests.length === 0) return unavailable(none);
  const missing = requests.find((request) => isUnavailable(request.usage));
  if (missing && isUnavailable(missing.usage)) {
    return unavailable(
      `${missing.id} (${missing.method} ${missing.path}) has no usage: ${missing.usage.reason}`,
    );
  }
  return sumUsage(requests.map((request) => request.usage as TokenUsage));
}

/** The numbers of an agent's own usage report, as a {@link TokenUsage} (`agent-reported`). */
export function agentReportedUsage(reported: {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens?: number;
  readonly reasoningTokens?: number;
  readonly reports: number;
}): TokenUsage {
  return {
    inputTokens: reported.inputTokens,
    outputTokens: reported.outputTokens,
    totalTokens: reported.inputTokens + reported.outputTokens,
    cachedInputTokens:
      reported.cachedInputTokens ?? unavailable("the agent did not report cached input tokens"),
    reasoningTokens:
      reported.reasoningTokens ?? unavailable("the agent did not report reasoning tokens"),
    source: "agent-reported",
    requests: reported.reports,
  };
}

/** The sum of several usages (their `source` is the first one's). */
export function sumUsage(usages: readonly TokenUsage[]): TokenUsage {
  const [first, ...rest] = usages;
  if (first === undefined) throw new RangeError("sumUsage needs at least one usage");
  return rest.reduce<TokenUsage>(
    (sum, next) => ({
      inputTokens: sum.inputTokens + next.inputTokens,
      outputTokens: sum.outputTokens + next.outputTokens,
      totalTokens: sum.totalTokens + next.totalTokens,
      cachedInputTokens: addOptional(sum.cachedInputTokens, next.cachedInputTokens),
      reasoningTokens: addOptional(sum.reasoningTokens, next.reasoningTokens),
      source: sum.source,
      requests: sum.requests + next.requests,
    }),
    first,
  );
}

/**
 * What one model costs, per million tokens, in a currency of your choosing. jest-m3 ships
 * no prices (they change); a missing price makes the cost {@link Unavailable}, never 0.
 */
export interface ModelPrice {
  /** Per million input tokens (the uncached part when `cachedInputPerMillion` is given). */
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
  /** Per million cached input tokens; without it cached tokens cost `inputPerMillion`. */
  readonly cachedInputPerMillion?: number;
}

/** Prices by model name, as the model requests name the model. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** A cost, and the usage it was computed from. */
export interface ModelCost {
  readonly cost: number;
  /** Per model: its cost and tokens. */
  readonly byModel: Readonly<Record<string, { readonly cost: number; readonly usage: TokenUsage }>>;
}

function priced(usage: TokenUsage, price: ModelPrice): number {
  const cached =
    price.cachedInputPerMillion !== undefined && !isUnavailable(usage.cachedInputTokens)
      ? usage.cachedInputTokens
      : 0;
  const cachedPrice = price.cachedInputPerMillion ?? price.inputPerMillion;
  return (
    ((usage.inputTokens - cached) * price.inputPerMillion +
      cached * cachedPrice +
      usage.outputTokens * price.outputPerMillion) /
    1_000_000
  );
}

/**
 * The cost of `requests` from `prices`, per model. {@link Unavailable} when a request has
 * no usage or names a model the table has no price for (it says which).
 *
 * @example
 * ```ts
 * const cost = modelCost(result.modelRequests ?? [], { "gpt-5.5": { inputPerMillion: 1.25, outputPerMillion: 10 } });
 * if (!isUnavailable(cost)) console.log(cost.cost.toFixed(4));
 * ```
 */
export function modelCost(
  requests: readonly ModelRequest[],
  prices: PriceTable,
): ModelCost | Unavailable {
  if (requests.length === 0) return unavailable("no model request was recorded");
  const byModel = new Map<string, TokenUsage[]>();
  for (const request of requests) {
    if (isUnavailable(request.usage)) {
      return unavailable(`${request.id} has no usage: ${request.usage.reason}`);
    }
    const model = request.model ?? "(no model named)";
    byModel.set(model, [...(byModel.get(model) ?? []), request.usage]);
  }
  const out: Record<string, { cost: number; usage: TokenUsage }> = {};
  let cost = 0;
  for (const [model, usages] of byModel) {
    const price = Object.hasOwn(prices, model) ? prices[model] : undefined;
    if (price === undefined) {
      return unavailable(
        `no price for model "${model}" (the price table has ${
          Object.keys(prices)
            .map((name) => `"${name}"`)
            .join(", ") || "no models"
        })`,
      );
    }
    const usage = sumUsage(usages);
    const each = priced(usage, price);
    out[model] = { cost: each, usage };
    cost += each;
  }
  return { cost, byModel: out };
}

/** One server's tools as an agent offered them to its model. */
export interface ServerCatalogCost {
  readonly server: string;
  /** The request measured: the first that offered any of this server's tools, or null. */
  readonly requestId: string | null;
  /** The tools of this server the model was offered, in the agent's naming. */
  readonly tools: readonly OfferedModelTool[];
  readonly bytes: number;
  readonly estimatedTokens: number;
}

/** What the tool definitions an agent sent its model cost, by server. */
export interface CatalogCost {
  readonly servers: readonly ServerCatalogCost[];
  /**
   * The agent's own tools (built-ins, tool search) and any tool no server claims, in the
   * first request that offered tools.
   */
  readonly agentTools: readonly OfferedModelTool[];
  /** Bytes of `agentTools` and every server's tools. */
  readonly bytes: number;
  readonly estimatedTokens: number;
}

const sanitized = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, "_");

/** The names agents give MCP tool `tool` of `server` (Codex namespaces aside). */
function spellings(server: string, tool: string): Set<string> {
  const out = new Set<string>();
  for (const s of new Set([server, sanitized(server)])) {
    for (const t of new Set([tool, sanitized(tool)])) {
      for (const name of [
        `mcp__${s}__${t}`,
        `mcp_${s}_${t}`,
        `${s}__${t}`,
        `${s}_${t}`,
        `${s}.${t}`,
        `${s}/${t}`,
      ]) {
        out.add(name);
      }
    }
  }
  return out;
}

/** Which server's tool an offered tool is, by the agents' spellings; undefined when none. */
function ownerOf(
  tool: OfferedModelTool,
  catalogs: Readonly<Record<string, readonly string[]>>,
  owners: ReadonlyMap<string, string>,
  bare: ReadonlyMap<string, readonly string[]>,
): string | undefined {
  if (tool.namespace !== null) {
    const namespace = tool.namespace.replace(/^mcp__/, "");
    return Object.keys(catalogs).find(
      (server) =>
        (server === namespace || sanitized(server) === namespace) &&
        (catalogs[server] ?? []).some((t) => t === tool.name || sanitized(t) === tool.name),
    );
  }
  const owner = owners.get(tool.name);
  if (owner !== undefined) return owner;
  const servers = bare.get(tool.name) ?? [];
  return servers.length === 1 ? servers[0] : undefined;
}

const bytesOf = (list: readonly OfferedModelTool[]) =>
  list.reduce((sum, tool) => sum + tool.bytes, 0);

/**
 * The context cost of each server's catalog in `requests`: for each server, its tools in
 * the first request that offered any of them (in the request's tools, or loaded by a tool
 * search), in any of the agents' spellings (`mcp__server__tool`, `mcp_server_tool`,
 * `server_tool`, a namespace `mcp__server`, or the bare tool name when one server has it).
 * A deferred tool the agent never loaded costs nothing, and is not counted. `catalogs` is
 * each server's tool names as it listed them.
 *
 * @example
 * ```ts
 * const cost = catalogCost(result.modelRequests ?? [], { shipping: ["shipping_quote"] });
 * ```
 */
export function catalogCost(
  requests: readonly ModelRequest[],
  catalogs: Readonly<Record<string, readonly string[]>>,
): CatalogCost {
  const owners = new Map<string, string>();
  const bare = new Map<string, string[]>();
  for (const [server, names] of Object.entries(catalogs)) {
    for (const tool of names) {
      for (const name of spellings(server, tool)) owners.set(name, server);
      bare.set(tool, [...(bare.get(tool) ?? []), server]);
    }
  }
  const found = new Map<string, { requestId: string; tools: OfferedModelTool[] }>();
  let agentTools: OfferedModelTool[] | undefined;
  for (const request of requests) {
    if (request.request.tools.length === 0) continue;
    const here = new Map<string, OfferedModelTool[]>();
    const unclaimed: OfferedModelTool[] = [];
    for (const tool of request.request.tools) {
      const server = ownerOf(tool, catalogs, owners, bare);
      if (server === undefined) unclaimed.push(tool);
      else here.set(server, [...(here.get(server) ?? []), tool]);
    }
    agentTools ??= unclaimed;
    for (const [server, tools] of here) {
      if (!found.has(server)) found.set(server, { requestId: request.id, tools });
    }
  }
  const servers = Object.keys(catalogs).map((server) => {
    const seen = found.get(server);
    const tools = seen?.tools ?? [];
    const bytes = bytesOf(tools);
    return {
      server,
      requestId: seen?.requestId ?? null,
      tools,
      bytes,
      estimatedTokens: Math.ceil(bytes / 4),
    };
  });
  const bytes = bytesOf(agentTools ?? []) + servers.reduce((sum, s) => sum + s.bytes, 0);
  return { servers, agentTools: agentTools ?? [], bytes, estimatedTokens: Math.ceil(bytes / 4) };
}

/**
 * {@link catalogCost} of a session: its model requests against the catalogs its servers
 * listed on the wire.
 *
 * @example
 * ```ts
 * const shipping = catalogCostOf(session.result).servers.find((s) => s.server === "shipping");
 * console.log(shipping?.estimatedTokens);
 * ```
 */
export function catalogCostOf(result: ExecutionResult): CatalogCost {
  const catalogs: Record<string, string[]> = {};
  for (const [server, catalog] of toolCatalogs(result.trace.messages)) {
    catalogs[server] = catalog.tools.map((tool) => tool.name);
  }
  return catalogCost(result.modelRequests ?? [], catalogs);
}
