/**
 * A run killed with a workspace open: a Jest worker dies (SIGKILL) while its real Codex
 * session holds a copied workspace, so nothing closes the session; the run's guard finds
 * the workspace's folder in the run's ledger (the kit's temporary folders) and removes it
 * within seconds, while the run goes on.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  SHIPPING_SERVER,
  cleanUpChildRun,
  childPids,
  makeUserProject,
  startJest,
  startTicks,
  waitUntil,
  type RunningJest,
} from "./support/user-project";

const CONFIG = JSON.stringify({
  harnesses: ["codex"],
  scriptedModel: { script: join(__dirname, "fixtures", "faults", "model-script.json") },
});

const KILLED = `import { mkdirSync, readdirSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCPTestKit } from "jest-m3";

test("killed with a workspace open", async () => {
  const out = process.env.M3_FAULT_OUT!;
  const source = join(out, "project");
  const marker = \`marker-\${process.pid}-\${Date.now()}.txt\`;
  mkdirSync(source);
  writeFileSync(join(source, marker), "mine\\n");
  const kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([{ harness: "codex", models: ["gpt-5.5"] }]);
  const session = agent!.session({
    server: { name: "shipping", command: process.execPath, args: [${JSON.stringify(SHIPPING_SERVER)}], cwd: "workspace" },
    workspace: { copy: source },
  });
  await session.open();
  const found = readdirSync(tmpdir())
    .filter((name) => name.startsWith("m3-workspace-"))
    .map((name) => join(tmpdir(), name, "project"))
    .filter((dir) => existsSync(join(dir, marker)));
  writeFileSync(join(out, "workspace.txt"), found.join("\\n"));
  process.kill(process.pid, "SIGKILL");
});
`;

const BUSY = `import { existsSync } from "node:fs";
import { join } from "node:path";

test("keeps the run busy", async () => {
  const release = join(process.env.M3_FAULT_OUT!, "release");
  const deadline = Date.now() + 60_000;
  while (!existsSync(release) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
});
`;

describe("a killed run's workspace", () => {
  let dir: string | undefined;
  let out: string | undefined;
  let jest: RunningJest | undefined;
  const folders: string[] = [];
  let leftovers: { pid: number; ticks: string | null }[] = [];

  afterEach(async () => {
    await cleanUpChildRun({ jest, leftovers, folders: [...folders, dir, out] });
    leftovers = [];
  });

  test("a Jest worker killed with a workspace open: the run's guard removes the folder", async () => {
    dir = makeUserProject({
      "m3.config.json": CONFIG,
      "killed.test.ts": KILLED,
      "busy.test.ts": BUSY,
    });
    out = mkdtempSync(join(tmpdir(), "m3-wskill-out-"));
    jest = startJest(dir, {
      args: ["--maxWorkers=2"],
      env: { M3_FAULT_OUT: out },
      timeoutMs: 90_000,
    });
    const listed = join(out, "workspace.txt");
    const written = await waitUntil(() => existsSync(listed), 60_000);
    for (const pid of childPids(jest.pid)) leftovers.push({ pid, ticks: startTicks(pid) });
    if (!written) throw new Error(`the session never opened:\n${jest.output()}`);
    const workspaces = readFileSync(listed, "utf8").split("\n").filter(Boolean);
    expect(workspaces).toHaveLength(1); // the folder existed while the session was open
    const workspace = workspaces[0]!;
    folders.push(dirname(workspace));
    const gone = await waitUntil(() => !existsSync(workspace), 10_000);
    writeFileSync(join(out, "release"), "");
    const run = await jest.done;
    expect(gone).toBe(true);
    expect(existsSync(dirname(workspace))).toBe(false);
    expect(run.output).toMatch(
      /a Jest worker \(pid \d+\) ended without closing its kits; (stopped \d+ process\(es\) they started and )?removed \d+ temporary folder\(s\)/,
    );
    expect(existsSync(join(out, "project"))).toBe(true); // the source is not the workspace
  }, 120_000);
});
