/**
 * Stopping a process group that an exited leader left with only a zombie in it (an agent
 * that exits leaves its MCP children to an init that may reap them late or never): the
 * zombie runs nothing, so `stop()` returns at once instead of running out its grace period.
 * The zombie is made deterministic: its parent is alive, outside the group, and never reaps.
 */
import { readFileSync } from "node:fs";
import { ManagedProcess, childEnvironment } from "../dist/processes/managed-process.js";

// L (the group's leader) forks M, which moves to a group of its own and forks C; C joins
// L's group and exits at once. M never reaps C and lets go of L's stdio, so once L is
// stopped the group holds only the zombie C.
const SCRIPT = String.raw`
use POSIX ();
$| = 1;
my $group = getpgrp();
my $m = fork();
if ($m == 0) {
  POSIX::setpgid(0, 0);
  my $c = fork();
  if ($c == 0) {
    POSIX::setpgid(0, $group) or die "setpgid: $!";
    print "C $$\n";
    POSIX::_exit(0);
  }
  select(undef, undef, undef, 0.3);
  print "M $$\n";
  open(STDIN, "<", "/dev/null"); open(STDOUT, ">", "/dev/null"); open(STDERR, ">", "/dev/null");
  sleep 60;
  POSIX::_exit(0);
}
select(undef, undef, undef, 0.6);
print "ready\n";
sleep 60;
`;

function stateOf(pid: number): { state: string; pgrp: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0]!, pgrp: Number(fields[2]) };
  } catch {
    return null;
  }
}

test("a group left with only a zombie is stopped at once, not after the grace period", async () => {
  const leader = new ManagedProcess({
    label: "zombie-maker",
    command: "perl",
    args: ["-e", SCRIPT],
    env: childEnvironment(),
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    leader.child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("ready\n")) resolve();
    });
    void leader.exited.then(() => reject(new Error(`perl ended early: ${leader.stderrTail()}`)));
  });
  const zombie = Number(/^C (\d+)$/m.exec(output)?.[1]);
  const parent = Number(/^M (\d+)$/m.exec(output)?.[1]);
  try {
    expect(stateOf(zombie)).toEqual({ state: "Z", pgrp: leader.child.pid });
    const started = Date.now();
    await leader.stop(10_000);
    const took = Date.now() - started;
    // Waiting on the zombie would take the whole 10 s grace (and a SIGKILL it ignores).
    expect(took).toBeLessThan(5_000);
    expect(stateOf(leader.child.pid!)).toBeNull();
    // Still a zombie: stopping did not pretend to reap what only its parent can.
    expect(stateOf(zombie)?.state).toBe("Z");
  } finally {
    process.kill(parent, "SIGKILL");
  }
});
