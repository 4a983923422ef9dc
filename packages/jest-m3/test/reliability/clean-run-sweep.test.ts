// A run that ends cleanly is never marked by a later run's sweep: `swept.json` is only for
// runs that ended without cleaning up (docs/ci.md, "What a run writes"). Two real runs of a
// user's project, each starting a stdio server (so each has ledgers a sweep reads), and a
// third folder made from the first as a crash leaves it: no teardown, its owner gone.
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeUserProject, removeTempDir, runJest, SHIPPING_SERVER } from "../support/user-project";

const DIRECT_TEST = `import { MCPTestKit } from "jest-m3";

test("quotes a parcel", async () => {
  await using kit = new MCPTestKit({ env: {} });
  const shipping = kit.direct({ name: "shipping", command: process.execPath, args: [${JSON.stringify(SHIPPING_SERVER)}] });
  const result = await shipping.callTool("shipping_quote", { weight_kg: 2, zone: "local" });
  expect(result.structuredContent).toEqual({ amount: 9, currency: "USD" });
});
`;

let dir: string;
afterEach(() => removeTempDir(dir));

test("two clean runs leave no swept.json; a crashed run's folder still gets one", () => {
  dir = makeUserProject({ "shipping.test.ts": DIRECT_TEST });
  const runs = join(dir, ".m3", "runs");
  const first = runJest(dir, { timeoutMs: 90_000 });
  expect(first.output).toContain("Tests:       1 passed, 1 total");
  const [firstRun] = readdirSync(runs);
  expect(existsSync(join(runs, firstRun!, "processes"))).toBe(true);
  const owner = JSON.parse(readFileSync(join(runs, firstRun!, "owner.json"), "utf8")) as {
    pid: number;
    startTicks: string | null;
    ended?: string;
  };
  expect(owner.ended).toEqual(expect.any(String));

  // The same folder as a run killed before its teardown leaves it: no recorded end.
  const crashed = join(runs, "2026-01-01-crashed");
  cpSync(join(runs, firstRun!), crashed, { recursive: true });
  writeFileSync(
    join(crashed, "owner.json"),
    JSON.stringify({ pid: owner.pid, startTicks: owner.startTicks }),
  );

  const second = runJest(dir, { timeoutMs: 90_000 });
  expect(second.output).toContain("Tests:       1 passed, 1 total");
  const swept = readdirSync(runs).filter((run) => existsSync(join(runs, run, "swept.json")));
  expect(swept).toEqual(["2026-01-01-crashed"]);
  expect(readdirSync(runs)).toHaveLength(3);
}, 200_000);
