// The history's lock under a slow machine: a contender that has waited a long time must not
// take over a lock a new owner has only just created. The owner's pid and start time are in
// the lock from the moment it exists, and a lock without a readable owner is judged by the
// file's own age, never by how long the contender has waited.
import { mkdtempSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { processStartTime } from "@jest-m3/core/lean";
import { withLock } from "../dist/store/lock";
import { removeTempDir } from "./support/user-project";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "jest-m3-lock-"));
});
afterEach(() => removeTempDir(dir));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function liveHolder(): string {
  return JSON.stringify({
    pid: process.pid,
    startTicks: processStartTime(process.pid),
    host: hostname(),
    at: new Date().toISOString(),
  });
}

test("a lock is never seen without its owner", async () => {
  const file = join(dir, "history.sqlite.lock");
  let seen = "";
  await withLock(file, () => {
    seen = readFileSync(file, "utf8");
  });
  expect(JSON.parse(seen)).toMatchObject({ pid: process.pid, host: hostname() });
});

test("a contender that waited long does not take over a lock whose owner is still writing it", async () => {
  const file = join(dir, "history.sqlite.lock");
  writeFileSync(file, liveHolder()); // a live owner: this very process
  let ranAt: number | null = null;
  const contender = withLock(
    file,
    () => {
      ranAt = Date.now();
    },
    30_000,
  );
  await sleep(6_000); // longer than the 5 s after which an ownerless lock counts as abandoned
  // A new owner's lock, not yet holding its owner (as an older writer left it between
  // creating the file and writing it): fresh on disk.
  writeFileSync(file, "");
  const fresh = Date.now();
  await sleep(1_500);
  expect(ranAt).toBeNull();
  // The same ownerless lock, old on disk: abandoned, taken over.
  const old = new Date(fresh - 10_000);
  utimesSync(file, old, old);
  await contender;
  expect(ranAt).not.toBeNull();
}, 40_000);
