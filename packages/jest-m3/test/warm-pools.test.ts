// Warm agents and test files: Jest gives each file its own modules, so a file's warm pool
// serves no later file. The preset stops a file's warm agents when the file is done, after
// its afterAll hooks (a session opened in beforeAll still closes cleanly on its agent), so
// the next file does not run beside an idle app-server it cannot use.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isRunning } from "@jest-m3/test-support";
import { readRecords } from "../src/shared/run-ledger";
import { makeUserProject, REPO, runFolder, runJest, SHIPPING_SERVER } from "./support/user-project";

const SCRIPT = join(REPO, "examples", "shipping", "model-script.json");

/**
 * A test file of the child project; `name` is where it writes what it saw. Its selection
 * says `warm: true`, or (`asked: false`) nothing: Codex's default.
 */
function warmFile(name: string, shape: "beforeAll" | "test", asked = true): string {
  const options = asked ? ", options: { warm: true }" : "";
  const open = `
  model = await startScriptedModel(${JSON.stringify(SCRIPT)});
  kit = new MCPTestKit({ env: {} });
  const [agent] = kit.agents([
    { harness: "codex", models: ["gpt-5.5"], provider: model.provider${options} },
  ]);
  session = agent!.session({
    server: { name: "shipping", command: process.execPath, args: [${JSON.stringify(SHIPPING_SERVER)}] },
    tools: ["shipping:shipping_quote"],
    timeout: 60_000,
  });
  open = await session.open();`;
  const turn = `
  const turn = await open.send("Call shipping_quote once for weight_kg 2 in zone local.");
  expect(turn.toolCalls).toHaveLength(1);`;
  const close = `
  await open.close();
  writeFileSync(join(__dirname, ${JSON.stringify(`${name}.json`)}), JSON.stringify({
    outcome: session.result.snapshot.outcome,
    codex: codexChildren(),
  }));
  await kit.close();
  await model.close();`;
  return `import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MCPTestKit, type AgentSession } from "jest-m3";
import { startScriptedModel, type ScriptedModel } from "@jest-m3/scripted-model";

function codexChildren(): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync("/proc/" + entry + "/stat", "utf8");
        const close = stat.lastIndexOf(")");
        const [state, ppid] = stat.slice(close + 2).split(" ");
        return Number(ppid) === process.pid && state !== "Z" && stat.slice(stat.indexOf("(") + 1, close) === "codex";
      } catch {
        return false;
      }
    })
    .map(Number);
}

let model: ScriptedModel;
let kit: MCPTestKit;
let session: AgentSession;
let open: AgentSession;
${
  shape === "beforeAll"
    ? `beforeAll(async () => {${open}
});
afterAll(async () => {${close}
});
test("a turn on a session opened in beforeAll", async () => {${turn}
});
`
    : `test("a warm session", async () => {${open}${turn}${close}
});
`
}`;
}

test("a file's warm agents stop when the file is done, after its afterAll hooks", () => {
  const dir = makeUserProject({
    "a.test.ts": warmFile("a", "beforeAll"),
    "b.test.ts": warmFile("b", "test"),
    "c.test.ts": warmFile("c", "test", false),
  });
  try {
    const run = runJest(dir, {
      args: ["--runInBand", "a.test.ts", "b.test.ts", "c.test.ts"],
      timeoutMs: 180_000,
    });
    expect(run.output).toContain("3 passed");
    const a = JSON.parse(readFileSync(join(dir, "a.json"), "utf8")) as {
      outcome: string;
      codex: number[];
    };
    const b = JSON.parse(readFileSync(join(dir, "b.json"), "utf8")) as {
      outcome: string;
      codex: number[];
    };
    // In a's afterAll the session closed cleanly, its app-server still up (kept warm).
    expect(a.outcome).toBe("completed");
    expect(a.codex).toHaveLength(1);
    // b runs beside no idle app-server of a: only its own.
    expect(b.outcome).toBe("completed");
    expect(b.codex).toHaveLength(1);
    expect(b.codex[0]).not.toBe(a.codex[0]);
    // Both warm app-servers are in the run's process ledger, like a kit's own processes,
    // so an interrupted run stops them too.
    const ledger = readRecords<{ pid: number; label: string }>(runFolder(dir), "processes");
    const c = JSON.parse(readFileSync(join(dir, "c.json"), "utf8")) as {
      outcome: string;
      codex: number[];
    };
    // c said nothing of warm: Codex's default is a warm app-server, c's own.
    expect(c.outcome).toBe("completed");
    expect(c.codex).toHaveLength(1);
    expect(c.codex).not.toContain(b.codex[0]);
    const warm = ledger.filter((entry) => entry.label === "codex app-server (warm)");
    expect(warm.map((entry) => entry.pid).sort()).toEqual(
      [a.codex[0], b.codex[0], c.codex[0]].sort(),
    );
    // The run is over: none of them is left.
    expect([...a.codex, ...b.codex, ...c.codex].filter(isRunning)).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
