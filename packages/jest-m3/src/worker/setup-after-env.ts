/**
 * The preset's `setupFilesAfterEnv`: registers the matchers with the global `expect`,
 * closes any kit a test left open (saying so), and records, for the reporter and the
 * global teardown, every session and child process of the test.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, expect } from "@jest/globals";
import {
  M3Runtime,
  installRuntime,
  stopWarmPools,
  type RunProviderSource,
} from "@jest-m3/core/runner";
import type { ExecutionResult, MCPTestKit, Readiness } from "@jest-m3/core";
import type { ProbeCache } from "@jest-m3/core/harness";
import { m3Matchers } from "../matchers/index.js";
import { appendRecord, processStartTicks } from "../shared/run-ledger.js";
import {
  ENVIRONMENT_MARK,
  FILE_DONE_HOOK,
  SCRUB_HOOK,
  TEST_DONE_HOOK,
  TEST_SKIPPED_HOOK,
} from "./environment-hooks.js";
import { recordSkippedTest, settleAgentSnapshots } from "../matrix/agent-snapshots.js";
import { RUN_ENV, runDir, sharedProviders } from "../shared/hand-off.js";
import { openProbeCache } from "../shared/probe-cache.js";
import { toDirectTranscript, toTranscript } from "../shared/transcript.js";
import { currentTrial } from "../matrix/trials.js";
import { failsTheTest, modelProblems, MODEL_JOURNAL } from "../shared/model-problems.js";
import {
  PROGRESS_ENV,
  sessionLine,
  toolCallLine,
  turnFinishedLine,
  turnStartedLine,
} from "../shared/progress.js";

expect.extend(m3Matchers);

// This test file's runtime: kits created without one use it. The run's shared scripted
// model (m3.config.json scriptedModel) serves every selection that names no provider, in
// its harness's dialect; global setup printed that choice at the start of the run.
const shared = sharedProviders();
const source: RunProviderSource | undefined = shared
  ? { providerFor: (dialect) => shared[dialect] }
  : undefined;

/**
 * The run's probe cache for this worker's readiness probes (the selections global setup did
 * not probe), written through as each answer comes: a worker has no end of its own to save
 * at, and the file keeps what other workers stored.
 */
function workerProbeCache(): { probeCache: ProbeCache } | undefined {
  const resultsDir = process.env[RUN_ENV.probeCache];
  const cache = resultsDir ? openProbeCache(resultsDir) : undefined;
  if (!cache) return undefined;
  return {
    probeCache: {
      get: (key) => cache.get(key),
      set: (key, value) => {
        cache.set(key, value);
        try {
          cache.save();
        } catch {
          // Not kept for the next run: this one goes on (the probe's answer is in hand).
        }
      },
    },
  };
}

/** `@jest-m3/scripted-model`'s `JOURNAL_SECRETS_PATH` (the package is optional here). */
const JOURNAL_SECRETS_PATH = "/_journal/secrets";
/** Secrets on their way to the shared scripted model; the file's end waits for them. */
const told = new Set<Promise<void>>();

/**
 * The preset's runtime: each secret a kit hands out (a `credentialEnv` value, a secret
 * header) is also told to the run's shared scripted model on loopback. Its journal is
 * written in Jest's main process, which never sees this worker's secrets, and would hold a
 * credential a server echoed into a tool result the agent sent back.
 */
class PresetRuntime extends M3Runtime {
  override registerSecret(name: string, value: string): void {
    super.registerSecret(name, value);
    const model = shared && Object.values(shared)[0];
    if (!model) return;
    const sent = fetch(new URL(JOURNAL_SECRETS_PATH, model.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ secrets: [{ name, value }] }),
    })
      .then(() => undefined)
      .catch(() => undefined)
      .finally(() => told.delete(sent));
    told.add(sent);
  }
}

const runtime = new PresetRuntime({
  ...(source ? { provider: { source, label: "m3.config.json scriptedModel" } } : {}),
  ...(workerProbeCache() ?? {}),
});
installRuntime(runtime);

const dir = runDir();

// Readiness global setup probed once for the run: sessions with the same key reuse it.
if (dir && existsSync(join(dir, "run.json"))) {
  const run = JSON.parse(readFileSync(join(dir, "run.json"), "utf8")) as {
    readiness?: Record<string, { key?: string; readiness?: Readiness }>;
  };
  for (const [name, entry] of Object.entries(run.readiness ?? {})) {
    if (entry.key && entry.readiness) runtime.primeReadiness(name, entry.key, entry.readiness);
  }
}
const testPath = expect.getState().testPath ?? "";
/** The sessions the current test finished, and when it started. */
let thisTestsSessions: ExecutionResult[] = [];
let testStartedAt = Date.now();
if (dir) {
  runtime.observe({
    processStarted(child) {
      appendRecord(dir, "processes", {
        ...child,
        startTicks: processStartTicks(child.pid),
        testPath,
        testName: expect.getState().currentTestName ?? null,
      });
    },
    tempDirCreated(path) {
      appendRecord(dir, "dirs", { path });
    },
    turnStarted({ agent, turn, prompt }) {
      if (progressOn()) progressLine(turnStartedLine(agent, turn ?? 0, prompt, sinceTestStart()));
    },
    toolCallSeen({ agent, turn, call, phase }) {
      if (progressOn()) progressLine(toolCallLine(agent, turn, call, phase, sinceTestStart()));
    },
    turnFinished({ agent, result }) {
      if (progressOn()) progressLine(turnFinishedLine(agent, result, sinceTestStart()));
    },
    executionFinished(result) {
      thisTestsSessions.push(result);
      if (progressOn()) progressLine(sessionLine(result, expect.getState().currentTestName ?? ""));
      appendRecord(dir, "executions", {
        ...toTranscript(result, testPath, expect.getState().currentTestName ?? ""),
        trial: currentTrial(),
      });
    },
    directClientClosed(closed) {
      // Its calls and messages, for the report and the failure transcripts, as a session's.
      appendRecord(dir, "executions", {
        ...toDirectTranscript(closed, testPath, expect.getState().currentTestName ?? ""),
        trial: currentTrial(),
      });
    },
  });
}

function progressOn(): boolean {
  return process.env[PROGRESS_ENV] === "1";
}
function progressLine(line: string): void {
  process.stderr.write(`${runtime.scrub(line)}\n`);
}
function sinceTestStart(): number {
  return Date.now() - testStartedAt;
}

let before = new Set<MCPTestKit>();

beforeEach(() => {
  before = new Set(runtime.openKits<MCPTestKit>());
  thisTestsSessions = [];
  testStartedAt = Date.now();
});

/**
 * Fails the test when the run's scripted model answered one of its turns with no rule of
 * its script, or a rule called a tool the agent was not offered (see `failsTheTest`): the
 * agent then got a stand-in reply, and a test that only checks what did not happen would
 * pass on a broken script. Opt-outs: a `fallback` for unmatched turns,
 * `"toolNotOffered": "expected"` on a rule (or the script) for tools withheld on purpose.
 */
afterEach(() => {
  if (!dir || !shared || thisTestsSessions.length === 0) return;
  const prompts = thisTestsSessions.flatMap((result) =>
    result.turns.map((turn) => turn.prompt.trim()).filter((prompt) => prompt !== ""),
  );
  const mine = modelProblems(dir).filter(
    (entry) =>
      failsTheTest(entry.kind) &&
      entry.at >= testStartedAt - 1000 &&
      entry.user !== null &&
      prompts.some((prompt) => entry.user!.includes(prompt) || prompt.includes(entry.user!.trim())),
  );
  if (mine.length === 0) return;
  throw new Error(
    `jest-m3: the run's scripted model could not answer ${mine.length} request(s) of this test's turns as its script says:\n` +
      mine
        .map((entry) => `  request #${entry.index} (${entry.request}): ${entry.problem}`)
        .join("\n") +
      `\nFix the script (m3.config.json scriptedModel.script): give it a "fallback" to answer anything unmatched; ` +
      `for a rule that calls a tool the agent is not offered on purpose (an allow-list test), add "toolNotOffered": "expected" to that rule. ` +
      `Every request and its decision: ${join(dir, MODEL_JOURNAL)} (written when the run ends).`,
  );
});

/** Closes the kits this test left open, and says so. */
async function closeKitsLeftOpen(done?: { timedOut: boolean }): Promise<void> {
  const leftOpen = runtime.openKits<MCPTestKit>().filter((kit) => !before.has(kit));
  if (leftOpen.length === 0) return;
  const name = expect.getState().currentTestName ?? "this test";
  const processes = leftOpen.flatMap((kit) =>
    kit.processes.map((child) => `${child.label} (pid ${child.pid})`),
  );
  await Promise.all(leftOpen.map((kit) => kit.close().catch(() => undefined)));
  const stopped = processes.length > 0 ? `, stopping ${processes.join(", ")}` : "";
  if (done?.timedOut) {
    // The test was still running when Jest gave up on it: `await using` had not reached
    // the end of its block, so advice to use it would be wrong.
    console.warn(
      `jest-m3: "${name}" exceeded Jest's test timeout while ${leftOpen.length} MCPTestKit(s) were still in use; closed them${stopped}. ` +
        "Give the test more time (test(name, fn, ms) or testTimeout), or give its sessions and turns a timeout shorter than the test's so they fail with a result first.",
    );
    return;
  }
  console.warn(
    `jest-m3: "${name}" left ${leftOpen.length} MCPTestKit(s) open; closed ${
      processes.length > 0 ? `them, stopping ${processes.join(", ")}` : "them"
    }. Use \`await using kit = new MCPTestKit()\` or close the kit in the test.`,
  );
}

// With the preset's environment the check runs when the test is done, after every
// afterEach hook (a user's afterEach that closes the kit comes first, so no false alarm).
// Under another environment, an afterEach hook is the best there is.
const hooks = globalThis as Record<symbol, unknown>;
if (hooks[ENVIRONMENT_MARK]) hooks[TEST_DONE_HOOK] = closeKitsLeftOpen;
else afterEach(() => closeKitsLeftOpen());

// Warm agents (`options: { warm: true }`) live in this file's modules, which no later test
// file sees (each file has its own): they are stopped when the file is done (after every
// afterAll, which may still close sessions on them) instead of idling.
const fileDone = async (): Promise<void> => {
  await stopWarmPools();
  await Promise.all([...told]);
};
if (hooks[ENVIRONMENT_MARK]) hooks[FILE_DONE_HOOK] = fileDone;
else afterAll(fileDone);

// The environment scrubs every error a test fails with (its message, stack and causes) of
// the secrets this file's kits handed out, before Jest formats it for reporters.
hooks[SCRUB_HOOK] = (text: string): string => runtime.scrub(text);

// describeAgents' trajectory snapshots are shared by the agents: at the file's end, those of
// agents and tests this run did not run are kept, not reported obsolete.
hooks[TEST_SKIPPED_HOOK] = recordSkippedTest;
afterAll(() =>
  settleAgentSnapshots((expect.getState() as { snapshotState?: unknown }).snapshotState),
);
