/**
 * The preset's `setupFilesAfterEnv`: registers the matchers with the global `expect`, and
 * closes any kit a test left open, saying so in the output.
 */
import { afterEach, beforeEach, expect } from "@jest/globals";
import { openKits, type MCPTestKit } from "@jest-m3/core";
import { m3Matchers } from "./matchers/index.js";

expect.extend(m3Matchers);

let before = new Set<MCPTestKit>();

beforeEach(() => {
  before = new Set(openKits());
});

afterEach(async () => {
  const leftOpen = openKits().filter((kit) => !before.has(kit));
  if (leftOpen.length === 0) return;
  const name = expect.getState().currentTestName ?? "this test";
  const processes = leftOpen.flatMap((kit) =>
    kit.processes.map((child) => `${child.label} (pid ${child.pid})`),
  );
  await Promise.all(leftOpen.map((kit) => kit.close().catch(() => undefined)));
  console.warn(
    `jest-m3: "${name}" left ${leftOpen.length} MCPTestKit(s) open; closed ${
      processes.length > 0 ? `them, stopping ${processes.join(", ")}` : "them"
    }. Use \`await using kit = new MCPTestKit()\` or close the kit in the test.`,
  );
});
