import { dirname, join } from "node:path";
import type { expect as JestGlobalExpect } from "@jest/globals";
import type { ToolCallStatus } from "@jest-m3/core";
import type { TurnRef } from "@jest-m3/core/runner";
import { shortValue } from "./format/values.js";
import { CHAIN_DESCRIPTION, type ToolCallOptions } from "./matchers/to-have-tool-call.js";
import { m3Matchers } from "./matchers/index.js";
import "./types.js";

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
  /** Only calls of this turn (a TurnResult, a turn id or a turn number). */
  inTurn(turn: TurnRef): ToolCallChain;
  /** Only calls to this server. */
  onServer(server: string): ToolCallChain;
  /** Only calls with these arguments (all of them, or with `partial` the given keys). */
  withArguments(args: Record<string, unknown>, options?: { partial?: boolean }): ToolCallChain;
  /** Only calls whose result includes these keys (e.g. `{ structuredContent: {...} }`). */
  withResult(result: Record<string, unknown>): ToolCallChain;
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

/** jest-m3's `expect`: Jest's, with the m3 matchers typed and the fluent tool-call chain. */
export type M3Expect = (<T = unknown>(actual: T) => M3Assertions<T>) & Omit<JestExpect, never>;

/** This module, compiled and (through source maps) as source: frames to hide from failures. */
const OWN_FRAMES = [__filename, join(dirname(__filename), "..", "src", "expect.ts")];

function label(turn: TurnRef): string {
  return typeof turn === "object" ? `turn ${turn.snapshot.number}` : JSON.stringify(turn);
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
      // Point the failure at the test's line, not at this module.
      if (error instanceof Error && error.stack) {
        error.stack = error.stack
          .split("\n")
          .filter((line) => !OWN_FRAMES.some((file) => line.includes(file)))
          .join("\n");
      }
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
  withResult(result: Record<string, unknown>): ToolCallChain {
    return this.next(`.withResult(${shortValue(result)})`, { result });
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
      return Reflect.get(target, property, receiver);
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
      return Reflect.get(jestExpect(), property);
    },
  },
) as unknown as M3Expect;
