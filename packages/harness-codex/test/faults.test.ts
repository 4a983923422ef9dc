/**
 * Faults around a real Codex session (issue "Reliability"): a server that floods stderr or
 * returns 10 MB, an app-server that dies during startup or never answers, hostile prompts. Each asserts the outcome, the evidence kept,
 * and that nothing is left running. Provider errors and broken streams are in the fault
 * matrix of every agent (packages/jest-m3/test/reliability/agent-matrix.ts).
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HarnessStartError, isUnavailable, M3Error } from "@jest-m3/core";
import codexHarness, { resolveCodexExecutable } from "@jest-m3/harness-codex";
import { stopWarmPools } from "@jest-m3/core/runner";
import {
  callRule,
  faultServer,
  faultSessionScript,
  isRunning,
  perTestKitOn,
} from "@jest-m3/test-support";

const faultyServer = faultServer();

describe("Codex session faults", () => {
  const t = perTestKitOn(
    codexHarness,
    faultSessionScript(
      callRule("flood", "faulty:flood", { bytes: 4_000_000 }, "done flooding"),
      callRule("big result", "faulty:big", { bytes: 10 * 1024 * 1024 }, "got it", "big"),
    ),
  );

  const agent = (executable?: string) =>
    t.kit.agents([
      {
        harness: "codex",
        models: ["scripted"],
        provider: t.model.provider,
        ...(executable ? { executable } : {}),
      },
    ])[0]!;

  test("a server flooding stderr: the call succeeds and the mirrored stderr stays bounded", async () => {
    const session = await agent().session({ server: faultyServer, timeout: 60_000 }).open();
    const turn = await session.send("flood");
    await session.close();
    expect(turn.snapshot.outcome).toBe("completed");
    expect(turn.toolCalls.map((call) => call.status)).toEqual(["success"]);
    const mirrored = session.result.trace.events
      .filter((event) => event.kind === "stderr")
      .reduce((total, event) => total + event.detail.length, 0);
    expect(mirrored).toBeGreaterThan(0);
    // The relay mirrors at most 256 KiB of stderr (plus one line saying it stopped).
    expect(mirrored).toBeLessThanOrEqual(256 * 1024 + 200);
  });

  test("a 10 MB tool result crosses the wire whole and is recorded", async () => {
    const session = await agent().session({ server: faultyServer, timeout: 60_000 }).open();
    const turn = await session.send("big result");
    await session.close();
    const [call] = turn.toolCalls;
    expect(call?.status).toBe("success");
    expect(isUnavailable(call?.result)).toBe(false);
    const content = (call!.result as { content: Array<{ text: string }> }).content;
    expect(content[0]?.text.length).toBe(10 * 1024 * 1024);
  });

  test("control characters and a prompt of almost 1 MB reach the model intact; the turn completes", async () => {
    const session = await agent().session({ server: faultyServer, timeout: 60_000 }).open();
    const prompt = `tab\there, bell\u0007, escape\u001b[31m, \u0001\u001f end\n${"x".repeat(1_000_000)}`;
    const turn = await session.send(prompt);
    await session.close();
    expect(turn.snapshot.outcome).toBe("completed");
    expect(turn.response?.text).toBe("fallback reply");
    const asked = t.model.journal.entries.map((entry) => JSON.stringify(entry)).join("\n");
    expect(asked).toContain("bell\\u0007");
  });

  test("a prompt over Codex's input limit fails its turn with Codex's words; the session goes on", async () => {
    const session = await agent().session({ server: faultyServer, timeout: 60_000 }).open();
    const tooLong = await session.send("y".repeat(1024 * 1024 + 1));
    const next = await session.send("echo");
    await session.close();
    expect(tooLong.snapshot.outcome).toBe("failed");
    expect(tooLong.error?.message).toContain(
      "Input exceeds the maximum length of 1048576 characters",
    );
    expect(next.snapshot.outcome).toBe("completed");
    expect(session.result.trace.gaps).toEqual([]);
  });

  async function wrapper(body: string): Promise<string> {
    const real = resolveCodexExecutable({}, {});
    if (!real.found) throw new Error(real.reason);
    const file = join(await t.kit.tempDir("m3-codex-wrapper-"), "codex");
    // Readiness (--version, the app-server probe) goes to the real binary; the session's
    // app-server (the second app-server start) misbehaves.
    writeFileSync(
      file,
      `#!/bin/sh\nif [ "$1" = "app-server" ]; then\n  n=$(cat "$0.count" 2>/dev/null || echo 0); echo $((n+1)) > "$0.count"\n  if [ "$n" -ge 1 ]; then\n${body}\n  fi\nfi\nexec "${real.path}" "$@"\n`,
    );
    chmodSync(file, 0o755);
    return file;
  }

  test("an app-server that exits during startup: HarnessStartError with its stderr, nothing left", async () => {
    const executable = await wrapper(
      '    echo "codex: fatal: cannot open state database" >&2\n    exit 3',
    );
    const session = agent(executable).session({ server: faultyServer, timeout: 30_000 });
    const error = await session.open().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HarnessStartError);
    expect((error as Error).message).toContain("cannot open state database");
    expect(session.result.snapshot.outcome).toBe("failed");
  });

  test("an app-server that never answers: open fails within the session's timeout, nothing left", async () => {
    const executable = await wrapper("    exec sleep 600");
    const warm: number[] = [];
    t.kit.runtime.observe({
      processStarted: (child) => void (child.label.includes("(warm)") && warm.push(child.pid)),
    });
    const session = agent(executable).session({ server: faultyServer, timeout: 3_000 });
    const started = Date.now();
    const error = await session.open().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(M3Error);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(session.result.snapshot.outcome).toBe("failed");
    // Still in its handshake, the warm app-server stops with the pools at the file's end
    // (what the preset does), not when its own start gives up a minute later.
    expect(warm).toHaveLength(1);
    await stopWarmPools();
    expect(warm.filter(isRunning)).toEqual([]);
  });
});
