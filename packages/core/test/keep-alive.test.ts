// A readiness probe may wait seconds on an agent whose handles the kit unref'd (so a test
// runner can exit when its tests are done). In a plain script nothing else holds the event
// loop, and Node used to end the process there, silently and with status 0 (seen with a
// slow-starting agent in `jest-m3 doctor` and in global setup). The runtime holds the process
// open for as long as a probe runs.
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const DIST = join(__dirname, "..", "dist");

const script = `
  const { MCPTestKit } = require(${JSON.stringify(join(DIST, "index.js"))});
  const { defineHarness } = require(${JSON.stringify(join(DIST, "harness.js"))});
  const slow = defineHarness({
    name: "slow-probe",
    async readiness() {
      // Work whose only handle is unref'd, as an agent's start is.
      await new Promise((resolve) => setTimeout(resolve, 700).unref());
      return {
        ready: true,
        harness: { name: "slow-probe", version: "1.0.0", executable: "none" },
        capabilities: {},
      };
    },
    async open() {
      throw new Error("not opened in this test");
    },
  });
  (async () => {
    const kit = new MCPTestKit({ env: {}, harnesses: [slow] });
    const [agent] = kit.agents([{ harness: "slow-probe", models: ["m"] }]);
    const readiness = await agent.readiness();
    console.log("probed: " + readiness.harness.version);
    await kit.close();
  })().catch((error) => { console.error(error); process.exit(3); });
`;

test("a plain script waiting on a slow readiness probe gets its answer", () => {
  const run = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 30_000 });
  expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
    status: 0,
    stdout: "probed: 1.0.0\n",
    stderr: "",
  });
});
