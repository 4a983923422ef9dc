/**
 * Ctrl-C in a run with Jest workers (issue 29, item 4): SIGINT to Jest's whole process group,
 * as a terminal sends it, while two workers each hold a Claude Code session in the middle
 * of a tool call that never answers (the server ignores EOF, SIGTERM and SIGINT). Jest's
 * main process and its workers all get the signal; the kits' processes (each in its own
 * process group) do not. Within 3 s of Jest's exit not one process the run's ledger
 * (`processes/`) recorded may run, the stubborn servers included (by the pids they wrote
 * themselves), and not one folder of its `dirs/` ledger may exist.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  isRunning,
  jsonLines,
  ledgerProcesses,
  runFolder,
  startJest,
  startTicks,
  waitUntil,
} from "../support/user-project";
import {
  faultConfig,
  inFaultProject,
  serverPids,
  waitingSessionTest,
} from "../support/fault-project";

const GONE_WITHIN_MS = 3000;

test("SIGINT to the process group of a run with two workers mid-call on Claude Code: nothing recorded runs 3 s after Jest exits, no recorded folder exists", async () => {
  const files = {
    "m3.config.json": faultConfig("claude-code"),
    "first.test.ts": waitingSessionTest("first, interrupted mid-call", 600),
    "second.test.ts": waitingSessionTest("second, interrupted mid-call", 600),
  };
  await inFaultProject(files, "m3-group-signal-out-", async (project) => {
    const { dir, out } = project;
    // Jest as a terminal runs it: the leader of its own process group.
    const child = (project.jest = startJest(dir, {
      args: ["--maxWorkers=2"],
      env: {
        M3_FAULT_OUT: out,
        M3_FAULT_AGENT: "claude-code:claude-sonnet-5-5",
        M3_FAULT_STUBBORN: "1",
      },
      timeoutMs: 150_000,
      detached: true,
    }));
    // Both calls arrived (the server's own log) and both servers said who they are.
    const midCall = await waitUntil(
      () => jsonLines(join(out, "calls.jsonl")).length >= 2 && serverPids(out).length >= 2,
      120_000,
    );
    if (!midCall) throw new Error(`the turns never reached their tool calls:\n${child.output()}`);
    const folder = runFolder(dir);
    const recorded = [
      ...ledgerProcesses(folder),
      ...serverPids(out).map((pid) => ({ pid, label: "stubborn server (its own pid file)" })),
    ].map((entry) => ({ ...entry, ticks: startTicks(entry.pid) }));
    project.leftovers.push(...recorded.map(({ pid, ticks }) => ({ pid, ticks })));
    const dirsFolder = join(folder, "dirs");
    const recordedDirs = readdirSync(dirsFolder).flatMap((file) =>
      jsonLines<{ path: string }>(join(dirsFolder, file)).map((entry) => entry.path),
    );
    project.leftoverDirs.push(...recordedDirs);
    // Two workers' kits: Claude Code, its relay and the server each, all running; their folders there.
    expect(readdirSync(join(folder, "processes"))).toHaveLength(2);
    expect(recorded.filter((entry) => !isRunning(entry.pid))).toEqual([]);
    expect(recordedDirs.length).toBeGreaterThanOrEqual(4);
    expect(recordedDirs.filter((path) => !existsSync(path))).toEqual([]);

    process.kill(-child.pid, "SIGINT");
    const run = await child.done;
    // Jest ends as Ctrl-C ends it, after the guards cleaned up.
    expect([run.status, run.signal]).toEqual([null, "SIGINT"]);
    const exitedAt = Date.now();

    const same = (entry: { pid: number; ticks: string | null }): boolean =>
      entry.ticks !== null && startTicks(entry.pid) === entry.ticks && isRunning(entry.pid);
    await waitUntil(
      () => !recorded.some(same) && recordedDirs.every((path) => !existsSync(path)),
      GONE_WITHIN_MS,
    );
    const waitedMs = Date.now() - exitedAt;
    expect({
      running: recorded.filter(same).map((entry) => `${entry.label} (pid ${entry.pid})`),
      folders: recordedDirs.filter((path) => existsSync(path)),
    }).toEqual({ running: [], folders: [] });
    expect(waitedMs).toBeLessThanOrEqual(GONE_WITHIN_MS + 200);
  });
}, 240_000);
