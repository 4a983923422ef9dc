/**
 * Scenarios of one test file that mostly wait (for a Jest timeout to fire, an agent to reach
 * a tool call, a signalled run to wind down), started together when the file starts, at most
 * `limit` at once, each awaited (and asserted on) by its own test: the file takes about as
 * long as its longest chain of scenarios instead of their sum. Each scenario cleans up after
 * itself (a `finally` of its own): a test's hooks do not run around it.
 *
 * A test's first attempt takes the scenario started for it; a retry (CI's `jest.retryTimes`)
 * runs the scenario again, on its own. `afterAll` waits for every scenario started, so none
 * outlives the file. A run filtered by `-t` still starts every scenario of the file (its
 * hooks do not see the filter), and reports only the selected ones.
 *
 * Not for scenarios that hold an MCPTestKit of this process: the preset closes every kit
 * still open when a test ends, another test's scenario's too. Scenarios that run Jest (or
 * the CLI) as a child process, whose kits are the child's, are what this is for.
 */

/** What {@link startTogether} returns: each test's way to its scenario. */
export interface StartedTogether<K extends string> {
  /**
   * The run of `key`'s scenario: on the first call the one started with the file, on a later
   * call (a retry) a new one.
   */
  run(key: K): Promise<void>;
}

/**
 * Registers the hooks (call it at a file's or describe block's top level): `beforeAll`
 * starts `scenarios` in their order, at most `limit` at once; `afterAll` waits for them.
 */
export function startTogether<K extends string>(
  limit: number,
  scenarios: Readonly<Record<K, () => Promise<void>>>,
): StartedTogether<K> {
  const started = new Map<K, Promise<void>>();
  beforeAll(() => {
    let free = limit;
    const waiting: (() => void)[] = [];
    const slot = async (): Promise<void> => {
      if (free > 0) free -= 1;
      else await new Promise<void>((resolve) => waiting.push(resolve));
    };
    const release = (): void => {
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    };
    for (const key of Object.keys(scenarios) as K[]) {
      const running = (async () => {
        await slot();
        try {
          await scenarios[key]();
        } finally {
          release();
        }
      })();
      // Awaited and reported by the test of `key`.
      running.catch(() => undefined);
      started.set(key, running);
    }
  });
  afterAll(async () => {
    await Promise.allSettled(started.values());
  });
  const taken = new Set<K>();
  return {
    run(key) {
      const running = started.get(key);
      if (running === undefined || taken.has(key)) return scenarios[key]();
      taken.add(key);
      return running;
    },
  };
}
