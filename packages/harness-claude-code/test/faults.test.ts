/**
 * Faults around a real Claude Code session: provider errors (401, 429, 500) and a cut
 * stream fail their turn and keep the session; an MCP server that fails to start, and a
 * Claude Code that exits while starting, fail `open()` with the words that say why. Each
 * asserts the outcome and that nothing is left running.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HarnessStartError } from "@jest-m3/core";
import claudeCodeHarness, { resolveClaudeExecutable } from "@jest-m3/harness-claude-code";
import { faultServer, faultSessionScript, perTestKitOn } from "@jest-m3/test-support";
import { ledgerServer } from "./support/claude";

jest.setTimeout(60_000);

const faultyServer = faultServer();

describe("Claude Code session faults", () => {
  const t = perTestKitOn(
    claudeCodeHarness,
    faultSessionScript(
      { name: "401", when: { user: "unauthorized" }, steps: [{ http: 401, message: "bad key" }] },
      {
        name: "429",
        when: { user: "rate limit me" },
        steps: [{ http: 429, message: "slow down" }],
      },
      {
        name: "500",
        when: { user: "outage" },
        steps: [{ http: 500, message: "scripted outage" }],
      },
      { name: "cut", when: { user: "cut the stream" }, steps: [{ cut: true }] },
    ),
  );

  const agent = (executable?: string) =>
    t.kit.agents([
      {
        harness: "claude-code",
        models: ["scripted-model"],
        provider: t.model.providerFor("anthropic-messages"),
        ...(executable ? { executable } : {}),
      },
    ])[0]!;

  test("HTTP 401, 429 and 500 fail their turns with Claude Code's words; a cut stream is retried without streaming; the session stays usable", async () => {
    const session = await agent().session({ server: faultyServer, timeout: 60_000 }).open();
    const unauthorized = await session.send("unauthorized");
    const limited = await session.send("rate limit me");
    const outage = await session.send("outage");
    const cut = await session.send("cut the stream");
    const after = await session.send("echo");
    await session.close();
    expect(
      [unauthorized, limited, outage, cut, after].map((turn) => turn.snapshot.outcome),
    ).toEqual(["failed", "failed", "failed", "completed", "completed"]);
    expect(unauthorized.error?.message).toMatch(/401/);
    expect(limited.error?.message).toMatch(/429|rate/i);
    expect(outage.error?.message).toMatch(/500|scripted outage/);
    // Claude Code recovers from a broken stream by asking again without streaming (even
    // with retries off): the second answer is the script's fallback.
    const cutRequests = t.model.journal.entries.filter(
      (entry) => !entry.side && JSON.stringify(entry.body).includes("cut the stream"),
    );
    // (later turns carry the prompt in their history too)
    expect(
      cutRequests.slice(0, 2).map((entry) => (entry.body as { stream?: boolean }).stream === true),
    ).toEqual([true, false]);
    expect(cut.response?.text).toBe("fallback reply");
    expect(after.toolCalls.map((call) => [call.tool, call.status, call.evidence])).toEqual([
      ["echo", "success", "both"],
    ]);
    // A failed turn fails the session's outcome, but not the session: turn 5 ran.
    expect(session.result.snapshot.outcome).toBe("failed");
    expect(session.result.turns).toHaveLength(5);
  });

  test("an MCP server that fails to start: HarnessStartError naming it, with its stderr", async () => {
    const dir = await t.kit.tempDir("m3-log-");
    const session = agent().session({
      server: ledgerServer(join(dir, "ledger.jsonl"), ["--exit-at-start"]),
      timeout: 30_000,
    });
    const error = await session.open().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HarnessStartError);
    expect((error as Error).message).toMatch(/MCP server "ledger" failed to start/);
    expect((error as Error).message).toContain("ledger: cannot open /nonexistent/ledger.db");
    expect(session.result.snapshot.outcome).toBe("failed");
  });

  test("Claude Code exiting while it starts: HarnessStartError with its stderr, nothing left", async () => {
    const real = resolveClaudeExecutable({}, {});
    if (!real.found) throw new Error(real.reason);
    const file = join(await t.kit.tempDir("m3-claude-wrapper-"), "claude");
    // Readiness (--version, --help) goes to the real binary; the session's process fails.
    writeFileSync(
      file,
      `#!/bin/sh\nif [ "$1" = "--print" ]; then\n  echo "claude: fatal: cannot read settings" >&2\n  exit 3\nfi\nexec "${real.path}" "$@"\n`,
    );
    chmodSync(file, 0o755);
    const session = agent(file).session({ server: faultyServer, timeout: 30_000 });
    const error = await session.open().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HarnessStartError);
    expect((error as Error).message).toContain("cannot read settings");
    expect((error as Error).message).toMatch(/exited \(code 3\)/);
    expect(session.result.snapshot.outcome).toBe("failed");
  });
});
