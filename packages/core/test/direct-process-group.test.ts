/**
 * Where kit.direct() starts a stdio server: in a process group of its own (so closing the
 * kit stops the server's own children) but in this process's session, through group-exec
 * (built at install time), not in a session of its own, which on Linux is a scheduling
 * autogroup that makes every call wait longer on a busy machine (bench/direct.ts). /proc is
 * the ground truth.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MCPTestKit } from "@jest-m3/core";
import { isRunning } from "./support/processes";

const GROUP_EXEC = join(__dirname, "..", "dist", "wire", "native", "group-exec");

/** Process group and session of `pid`, from /proc/<pid>/stat. */
function groupAndSession(pid: number | "self"): { pgrp: number; session: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { pgrp: Number(fields[2]), session: Number(fields[3]) };
}

test("the server leads its own process group in this session, and its child goes with it", async () => {
  // The repository's install builds group-exec with the machine's C compiler.
  expect(existsSync(GROUP_EXEC)).toBe(true);
  const kit = new MCPTestKit({ env: {}, killGraceMs: 300 });
  const client = kit.direct({
    name: "group",
    command: process.execPath,
    args: [join(__dirname, "fixtures", "group-server.mjs")],
    cwd: join(__dirname, ".."),
  });
  let pids: { server: number; child: number };
  try {
    const result = await client.callTool("pids");
    pids = result.structuredContent as { server: number; child: number };
    const connected = client.trace.events.find((event) => event.kind === "connected");
    expect(connected?.detail).toBe(`pid ${pids.server}`);
    const ours = groupAndSession("self");
    const server = groupAndSession(pids.server);
    expect(server).toEqual({ pgrp: pids.server, session: ours.session });
    expect(server.pgrp).not.toBe(ours.pgrp);
    expect(groupAndSession(pids.child)).toEqual({ pgrp: pids.server, session: ours.session });
  } finally {
    await kit.close();
  }
  expect(isRunning(pids.server)).toBe(false);
  expect(isRunning(pids.child)).toBe(false);
});

test("a command that cannot be executed fails the start before any call, naming it", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const client = kit.direct({ name: "nope", command: __filename, args: [] });
  // A file without the execute bit: the exec inside group-exec fails with EACCES.
  await expect(client.initialize()).rejects.toThrow(
    `command ${JSON.stringify(__filename)} could not be started: spawn ${__filename} EACCES`,
  );
  expect(client.trace.toolCalls).toHaveLength(0);
});
