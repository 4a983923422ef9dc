import { join } from "node:path";
import { InvalidArgument } from "../errors.js";
import type { StdioServer } from "../servers/spec.js";

/**
 * What goes wrong with a tool's calls. Each may be limited to some calls with `onCalls`
 * (1-based numbers of that tool's calls; default every call).
 *
 * - `delay`: the answer is held `ms` milliseconds.
 * - `hang`: the request never reaches the server and is never answered.
 * - `drop`: the server answers, the answer is dropped.
 * - `malformed`: the answer is replaced by a line that is not JSON.
 * - `partial`: only the first half of the answer's frame is written (no newline): the
 *   call never completes and the next frame arrives corrupted.
 * - `split`: the answer is written in two chunks 50 ms apart (a valid frame a correct
 *   client must reassemble).
 * - `crash`: the server process dies when the call arrives (exit code 1 by default).
 * - `reorder`: the answer is held back and written after the next answer (or after 2 s).
 */
export type Fault = (
  | { readonly kind: "delay"; readonly ms: number }
  | { readonly kind: "hang" }
  | { readonly kind: "drop" }
  | { readonly kind: "malformed" }
  | { readonly kind: "partial" }
  | { readonly kind: "split" }
  | { readonly kind: "crash"; readonly exitCode?: number }
  | { readonly kind: "reorder" }
) & { readonly onCalls?: readonly number[] };

/**
 * Faults for a wrapped server: per tool, and a crash after a number of calls.
 *
 * @example
 * ```ts
 * const plan: FaultPlan = { tools: { echo: { kind: "delay", ms: 500, onCalls: [1] } }, crashAfterCalls: 10 };
 * ```
 */
export interface FaultPlan {
  /** Faults by tool name. */
  readonly tools?: Readonly<Record<string, Fault>>;
  /** The server dies after answering this many `tools/call` requests (of any tool). */
  readonly crashAfterCalls?: number;
}

const KINDS = new Set([
  "delay",
  "hang",
  "drop",
  "malformed",
  "partial",
  "split",
  "crash",
  "reorder",
]);

function checkPlan(plan: FaultPlan): void {
  if (typeof plan !== "object" || plan === null)
    throw new InvalidArgument(
      "withFaults(): the plan must be an object { tools?, crashAfterCalls? }.",
    );
  for (const key of Object.keys(plan)) {
    if (key !== "tools" && key !== "crashAfterCalls") {
      throw new InvalidArgument(
        `withFaults(): unknown key "${key}" (known: tools, crashAfterCalls).`,
      );
    }
  }
  if (
    plan.crashAfterCalls !== undefined &&
    (!Number.isInteger(plan.crashAfterCalls) || plan.crashAfterCalls < 1)
  ) {
    throw new InvalidArgument(
      `withFaults(): crashAfterCalls must be a whole number ≥ 1, got ${JSON.stringify(plan.crashAfterCalls)}.`,
    );
  }
  for (const [tool, fault] of Object.entries(plan.tools ?? {})) {
    const where = `withFaults(): tools[${JSON.stringify(tool)}]`;
    if (typeof fault !== "object" || fault === null || !KINDS.has(fault.kind)) {
      throw new InvalidArgument(
        `${where}.kind must be one of ${[...KINDS].join(", ")}; got ${JSON.stringify(fault)}.`,
      );
    }
    if (fault.kind === "delay" && (typeof fault.ms !== "number" || !(fault.ms >= 0))) {
      throw new InvalidArgument(`${where}: a delay needs ms ≥ 0.`);
    }
    if (
      fault.onCalls !== undefined &&
      (!Array.isArray(fault.onCalls) || !fault.onCalls.every((n) => Number.isInteger(n) && n >= 1))
    ) {
      throw new InvalidArgument(`${where}.onCalls must list call numbers ≥ 1.`);
    }
  }
}

/**
 * Wraps a stdio server so its traffic misbehaves as planned: the returned spec starts a
 * small proxy process that runs the real server and injects the faults into what crosses
 * it. Use it with `kit.direct()` or in an agent session like any stdio server.
 *
 * @example
 * ```ts
 * const flaky = withFaults(server, { tools: { shipping_quote: { kind: "hang", onCalls: [2] } } });
 * const client = kit.direct(flaky, { timeoutMs: 1000 });
 * ```
 */
export function withFaults(server: StdioServer, plan: FaultPlan): StdioServer {
  if (typeof server !== "object" || server === null || typeof server.command !== "string") {
    throw new InvalidArgument(
      "withFaults(): the first argument must be a stdio server spec { name, command, args? }.",
    );
  }
  checkPlan(plan);
  const encoded = Buffer.from(JSON.stringify(plan)).toString("base64");
  return {
    ...server,
    command: process.execPath,
    args: [
      join(__dirname, "fault-proxy.js"),
      encoded,
      "--",
      server.command,
      ...(server.args ?? []),
    ],
  };
}
