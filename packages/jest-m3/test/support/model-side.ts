/**
 * Ground truth for the provider tap: a loopback "vendor" endpoint in front of the scripted
 * model that keeps the exact bytes it received and sent (as a live provider would see them),
 * and the checks that the tap's records agree with it and with the scripted model's journal.
 */
import { createHash } from "node:crypto";
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { ModelProvider } from "@jest-m3/core/harness";
import {
  catalogCost,
  type AgentSelection,
  type ExecutionResult,
  type ModelRequest,
  type StdioServer,
  type TurnResult,
} from "jest-m3";
import type { JournalEntry } from "@jest-m3/scripted-model";

/** What the vendor endpoint saw of one request. */
export interface VendorExchange {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly sha256: string;
  readonly bytes: number;
  readonly status: number;
  readonly answer: string;
}

/** A pass-through endpoint that forwards to `upstream` and remembers every exchange. */
export async function startVendor(upstream: ModelProvider): Promise<{
  readonly provider: ModelProvider;
  readonly seen: VendorExchange[];
  close(): Promise<void>;
}> {
  const target = new URL(upstream.baseUrl);
  const seen: VendorExchange[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const out = request(
        new URL(req.url ?? "/", target.origin),
        { method: req.method, headers: { ...req.headers, host: target.host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          const back: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => {
            back.push(chunk);
            res.write(chunk);
          });
          let recorded = false;
          const record = (cut: boolean) => {
            if (recorded) return;
            recorded = true;
            if (cut) res.destroy();
            else res.end();
            seen.push({
              method: req.method ?? "GET",
              path: (req.url ?? "/").split("?")[0] ?? "/",
              headers: req.headers,
              sha256: createHash("sha256").update(body).digest("hex"),
              bytes: body.length,
              status: answer.statusCode ?? 0,
              answer: Buffer.concat(back).toString("utf8"),
            });
          };
          answer.on("end", () => record(false));
          answer.on("error", () => record(true));
          answer.on("close", () => record(!answer.complete));
        },
      );
      out.on("error", () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    provider: {
      ...upstream,
      baseUrl: `http://127.0.0.1:${port}${target.pathname.replace(/\/+$/, "")}`,
    },
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const KEYS = {
  input: ["input_tokens", "prompt_tokens", "promptTokenCount"],
  output: ["output_tokens", "completion_tokens", "candidatesTokenCount"],
};

/** The last number the answer gives for any of `names` (usage as the scripted model wrote it). */
function lastNumber(text: string, names: readonly string[]): number | undefined {
  let found: number | undefined;
  for (const match of text.matchAll(/"(\w+)":\s*(\d+)/g)) {
    if (names.includes(match[1]!)) found = Number(match[2]);
  }
  return found;
}

/** Usage as the bytes the vendor sent say it, by a plain search (no dialect parser). */
export function usageInAnswer(answer: string): { input: number; output: number } | null {
  const input = lastNumber(answer, KEYS.input);
  const output = lastNumber(answer, KEYS.output);
  return input === undefined || output === undefined ? null : { input, output };
}

/**
 * The usage the vendor's answers to `requests` say, summed: each request's answer found
 * among `pairs` (see {@link expectTapAgreesWithGroundTruth}) by its record id.
 */
export function usageOfAnswers(
  requests: readonly ModelRequest[],
  pairs: readonly { record: ModelRequest; exchange: VendorExchange }[],
): { input: number; output: number } {
  return requests
    .map((r) => usageInAnswer(pairs.find((p) => p.record.id === r.id)!.exchange.answer)!)
    .reduce((a, b) => ({ input: a.input + b.input, output: a.output + b.output }));
}

const GENERATION =
  /(\/responses|\/chat\/completions|\/messages|:generateContent|:streamGenerateContent)$/;

/**
 * Checks the tap's records of `result` against the vendor's exchanges and the scripted
 * model's journal entries of the session; returns the pairs (tap record, vendor exchange) in arrival order.
 */
export function expectTapAgreesWithGroundTruth(
  result: ExecutionResult,
  journal: readonly JournalEntry[],
  seen: readonly VendorExchange[],
  catalogs: Readonly<Record<string, readonly string[]>>,
): { record: ModelRequest; exchange: VendorExchange }[] {
  const records = result.modelRequests ?? [];
  // Same number of requests everywhere: none lost, none invented.
  expect(records).toHaveLength(journal.length);
  expect(seen).toHaveLength(journal.length);
  // The bytes the agent sent (hashed by the tap) are the bytes the vendor received.
  expect(records.map((r) => r.request.sha256).sort()).toEqual(seen.map((s) => s.sha256).sort());
  const pairs = seen.map((exchange, index) => {
    const record = records.find(
      (r) => r.request.sha256 === exchange.sha256 && r.path === exchange.path,
    );
    expect(record).toBeDefined();
    const entry = journal[index]!;
    expect([record!.method, record!.path, record!.status]).toEqual([
      entry.method,
      entry.path.split("?")[0],
      entry.status,
    ]);
    // The tools offered, as the journal read them (MCP tools, server:tool).
    if (entry.conversation !== null && !entry.side) {
      const mcp = catalogCost([record!], catalogs)
        .servers.flatMap((server) =>
          server.tools.map((tool) => {
            const names = catalogs[server.server] ?? [];
            const mcpName = names.find((name) => tool.name.endsWith(name)) ?? tool.name;
            return `${server.server}:${mcpName}`;
          }),
        )
        .sort();
      expect(mcp).toEqual([...entry.conversation.offeredTools].sort());
    }
    // The calls the model asked for, as the journal decided them.
    const decided = entry.decision.kind === "call" ? entry.decision.calls.map((c) => c.name) : [];
    expect(record!.toolCalls.map((call) => call.name)).toEqual(decided);
    // Usage as the vendor's bytes carry it.
    const truth = usageInAnswer(exchange.answer);
    if (GENERATION.test(exchange.path) && exchange.status < 400) {
      expect(truth).not.toBeNull();
      expect(record!.usage).toMatchObject({
        inputTokens: truth!.input,
        outputTokens: truth!.output,
        source: "provider",
      });
    }
    return { record: record!, exchange };
  });
  return pairs;
}

/**
 * One session of `agent` on `server` (shipping_quote only) whose one turn asks for one quote
 * (180 s for the session and the turn); the session's result and the turn, once it closed.
 */
export async function quoteOnce(
  agent: AgentSelection,
  server: StdioServer,
): Promise<{ readonly result: ExecutionResult; readonly turn: TurnResult }> {
  const session = agent.session({
    server,
    tools: ["shipping:shipping_quote"],
    timeout: 180_000,
  });
  let turn: TurnResult;
  {
    await using open = await session.open();
    turn = await open.send("Call shipping_quote once for weight_kg 2 in zone local.", {
      timeout: 180_000,
    });
  }
  return { result: session.result, turn };
}
