import { AsyncLocalStorage } from "node:async_hooks";
import { dirname, join } from "node:path";
import type { expect as JestGlobalExpect } from "@jest/globals";
import type { ToolCallStatus } from "@jest-m3/core";
import { describeTurn, type TurnRef } from "@jest-m3/core/runner";
import { shortValue } from "../format/values.js";
import { CHAIN_DESCRIPTION, type ToolCallOptions } from "../matchers/to-have-tool-call.js";
import { m3Matchers } from "../matchers/index.js";
import "../types.js";

let registered: typeof JestGlobalExpect | undefined;

/**
 * Jest's expect, loaded on first use: `@jest/globals` may only be loaded inside a test, and
 * jest-m3 is also imported outside one (a global setup, an adapter package). The matchers
 * are registered with it then (the preset's setup file does the same for the global expect).
 */
function jestExpect(): typeof JestGlobalExpect {
  if (!registered) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- must load lazily
    registered = (require("@jest/globals") as { expect: typeof JestGlobalExpect }).expect;
    registered.extend(m3Matchers);
  }
  return registered;
}

type JestExpect = typeof JestGlobalExpect;
type Assertions<T> = ReturnType<typeof JestGlobalExpect<T>>;

/**
 * The fluent form of `toHaveToolCall`. Every link narrows the selection and asserts at
 * once, so a chain needs no terminal call; a failure shows the whole chain.
 *
 * @example
 * ```ts
 * expect(result).toHaveToolCall("shipping_quote").inTurn(second).onServer("shipping").withStatus("success").times(1);
 * ```
 */
export interface ToolCallChain {
  /** Only calls of this turn (a TurnResult, its snapshot, a turn id or a turn number). */
  inTurn(turn: TurnRef): ToolCallChain;
  /** Only calls to this server. */
  onServer(server: string): ToolCallChain;
  /** Only calls with these arguments (all of them, or with `partial` the given keys). */
  withArguments(args: Record<string, unknown>, options?: { partial?: boolean }): ToolCallChain;
  /**
   * Only calls whose result (m3's projection: `content`, `structuredContent`, `isError`)
   * equals this, or with `partial` has these keys (e.g. `{ structuredContent: {...} }`).
   */
  withResult(result: Record<string, unknown>, options?: { partial?: boolean }): ToolCallChain;
  /** Only calls with this status (or one of these). */
  withStatus(status: ToolCallStatus | readonly ToolCallStatus[]): ToolCallChain;
  /** Exactly `n` such calls. */
  times(n: number): ToolCallChain;
  /** Exactly one such call. */
  once(): ToolCallChain;
  /** At least `n` such calls. */
  atLeast(n: number): ToolCallChain;
  /** At most `n` such calls. */
  atMost(n: number): ToolCallChain;
}

/** What jest-m3's `expect(value)` returns: Jest's matchers, with the chain on `toHaveToolCall`. */
export type M3Assertions<T> = Omit<Assertions<T>, "toHaveToolCall" | "not"> & {
  toHaveToolCall(tool?: string, options?: ToolCallOptions): ToolCallChain;
  /** Under `.not`, `toHaveToolCall` takes every filter as options and returns no chain. */
  not: Assertions<T>["not"];
};

/**
 * jest-m3's `expect`: Jest's, with the m3 matchers typed, the fluent tool-call chain, and
 * {@link M3Expect.softly} for grouped (soft) assertions.
 */
export type M3Expect = (<T = unknown>(actual: T) => M3Assertions<T>) &
  Omit<JestExpect, never> & {
    /**
     * Runs `body`, in which every assertion made with jest-m3's `expect` records its failure
     * instead of throwing; at the end, throws one error listing every failure (or returns).
     * For long agent tests, where the first failure would hide the rest. Returns a promise
     * when `body` does.
     *
     * @example
     * ```ts
     * expect.softly(() => {
     *   expect(result).toBeCompleted();
     *   expect(result).toHaveToolCall("shipping_quote", { turn: 1, count: 1 });
     *   expect(second).toHaveTextContaining("15.5");
     * });
     * ```
     */
    softly<T extends void | Promise<void>>(body: () => T): T;
  };

/** This module, compiled and (through source maps) as source: frames to hide from failures. */
const OWN_FRAMES = [
  __filename,
  join(dirname(__filename), "..", "..", "src", "worker", "expect.ts"),
];

function label(turn: TurnRef): string {
  return typeof turn === "object" ? `turn ${describeTurn(turn)}` : JSON.stringify(turn);
}

/** Points a failure at the test's line, not at this module. */
function hideOwnFrames(error: unknown): void {
  if (error instanceof Error && error.stack) {
    error.stack = error.stack
      .split("\n")
      .filter((line) => !OWN_FRAMES.some((file) => line.includes(file)))
      .join("\n");
  }
}

/** The failures of the soft group a body runs in, if it runs in one. */
const softGroup = new AsyncLocalStorage<{ failures: Error[] }>();

/** Records `error` in the current soft group; false when there is none (then throw it). */
function recordSoft(error: unknown): boolean {
  const group = softGroup.getStore();
  if (!group || !(error instanceof Error)) return false;
  group.failures.push(error);
  return true;
}

/** What a failed soft assertion returns: anything, called or read, is itself, and inert. */
const inert: unknown = new Proxy(function inert() {}, {
  get: (_target, property) => (property === "then" ? undefined : inert),
  apply: () => inert,
});

/** The test's line of a failure: the first frame outside jest-m3 and Jest. */
function locationOf(error: Error): string {
  const frame = (error.stack ?? "")
    .split("\n")
    .find(
      (line) =>
        line.trim().startsWith("at ") &&
        !OWN_FRAMES.some((file) => line.includes(file)) &&
        !line.includes("node_modules") &&
        !line.includes("node:"),
    );
  const match = frame ? /\(?([^()\s]+:\d+:\d+)\)?$/.exec(frame.trim()) : null;
  return match?.[1] ? ` (${match[1]})` : "";
}

function softly<T extends void | Promise<void>>(body: () => T): T {
  const group = { failures: [] as Error[] };
  const settle = (): void => {
    if (group.failures.length === 0) return;
    const n = group.failures.length;
    const error = new Error(
      `${n} grouped assertion${n === 1 ? "" : "s"} failed:\n\n` +
        group.failures
          .map(
            (failure, index) =>
              `${index + 1}.${locationOf(failure)} ${failure.message.replace(/\n(?=.)/g, "\n   ")}`,
          )
          .join("\n\n"),
    );
    throw error;
  };
  const result = softGroup.run(group, body);
  if (result instanceof Promise) return result.then(settle) as T;
  settle();
  return result;
}

/** Wraps a matcher call so that, in a soft group, a failure is recorded instead of thrown. */
function soft<F extends (...args: never[]) => unknown>(call: F): F {
  return ((...args: Parameters<F>) => {
    try {
      const out = call(...args);
      if (out instanceof Promise) {
        return out.catch((error: unknown) => {
          if (!recordSoft(error)) throw error;
        });
      }
      return out;
    } catch (error) {
      hideOwnFrames(error);
      if (recordSoft(error)) return inert;
      throw error;
    }
  }) as F;
}

class Chain implements ToolCallChain {
  constructor(
    private readonly actual: unknown,
    private readonly tool: string | undefined,
    private readonly options: ToolCallOptions,
    private readonly negated: boolean,
    private readonly links: readonly string[],
  ) {}

  assert(): this {
    const base = jestExpect()(this.actual);
    const target = this.negated ? base.not : base;
    const options = { ...this.options, [CHAIN_DESCRIPTION]: this.links.join("") };
    try {
      target.toHaveToolCall(this.tool, options);
    } catch (error) {
      hideOwnFrames(error);
      if (recordSoft(error)) return inert as this;
      throw error;
    }
    return this;
  }

  private next(link: string, more: ToolCallOptions): ToolCallChain {
    return new Chain(this.actual, this.tool, { ...this.options, ...more }, this.negated, [
      ...this.links,
      link,
    ]).assert();
  }

  inTurn(turn: TurnRef): ToolCallChain {
    return this.next(`.inTurn(${label(turn)})`, { turn });
  }
  onServer(server: string): ToolCallChain {
    return this.next(`.onServer(${JSON.stringify(server)})`, { server });
  }
  withArguments(args: Record<string, unknown>, options: { partial?: boolean } = {}): ToolCallChain {
    const partial = options.partial === true;
    return this.next(`.withArguments(${shortValue(args)}${partial ? ", { partial: true }" : ""})`, {
      arguments: args,
      argumentsMatch: partial ? "partial" : "exact",
    });
  }
  withResult(result: Record<string, unknown>, options: { partial?: boolean } = {}): ToolCallChain {
    const partial = options.partial === true;
    return this.next(`.withResult(${shortValue(result)}${partial ? ", { partial: true }" : ""})`, {
      result,
      resultMatch: partial ? "partial" : "exact",
    });
  }
  withStatus(status: ToolCallStatus | readonly ToolCallStatus[]): ToolCallChain {
    return this.next(`.withStatus(${JSON.stringify(status)})`, { status });
  }
  times(n: number): ToolCallChain {
    return this.next(`.times(${n})`, { count: n, minCount: undefined, maxCount: undefined });
  }
  once(): ToolCallChain {
    return this.next(".once()", { count: 1, minCount: undefined, maxCount: undefined });
  }
  atLeast(n: number): ToolCallChain {
    return this.next(`.atLeast(${n})`, { minCount: n, count: undefined });
  }
  atMost(n: number): ToolCallChain {
    return this.next(`.atMost(${n})`, { maxCount: n, count: undefined });
  }
}

/** Jest's own assertions (under `.resolves`, `.rejects`), soft in a soft group. */
function softOnly<M extends object>(matchers: M): M {
  return new Proxy(matchers, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value === "function")
        return soft((value as (...args: never[]) => unknown).bind(target));
      return typeof value === "object" && value !== null ? softOnly(value) : value;
    },
  });
}

function withChain<M extends object>(matchers: M, actual: unknown, negated: boolean): M {
  return new Proxy(matchers, {
    get(target, property, receiver) {
      if (property === "toHaveToolCall") {
        // Under .not the assertion is complete at once: narrowing links after it could only
        // weaken "no such call", so the negated form takes the options and returns nothing.
        return (tool?: string, options: ToolCallOptions = {}) => {
          const chain = new Chain(actual, tool, options, negated, []).assert();
          return negated ? undefined : chain;
        };
      }
      if (property === "not" && !negated) {
        return withChain(Reflect.get(target, property, receiver) as object, actual, true);
      }
      const value: unknown = Reflect.get(target, property, receiver);
      if (property === "resolves" || property === "rejects") return softOnly(value as object);
      return typeof value === "function"
        ? soft((value as (...args: never[]) => unknown).bind(target))
        : value;
    },
  });
}

/**
 * Jest's `expect` with the jest-m3 matchers, typed, and the fluent chain on
 * `toHaveToolCall`. Everything else (`expect.objectContaining`, `expect.extend`, ...) is
 * Jest's own.
 */
export const expect: M3Expect = new Proxy(
  (actual: unknown) => withChain(jestExpect()(actual), actual, false),
  {
    get(_target, property) {
      if (property === "softly") return softly;
      return Reflect.get(jestExpect(), property);
    },
  },
) as unknown as M3Expect;
