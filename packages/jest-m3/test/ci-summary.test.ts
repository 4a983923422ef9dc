// CI summaries of real runs: a user's project run twice by Jest as a child process with
// GITHUB_ACTIONS=true and GITHUB_STEP_SUMMARY pointing at a file, two agents (the test
// harness with two scripted models) making real MCP calls. The second run breaks a test: its
// job summary has the grid and the regression `jest-m3 diff` reports, the failing test gets
// an ::error annotation on its line, and its report.html grid shows it in Chromium.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { testId } from "../dist/report/build";
import { markdownCell } from "../dist/report/ci-summary";
import { withChromium } from "./support/chromium";
import {
  makeUserProject,
  removeTempDir,
  runJest,
  TEST_HARNESS as testHarness,
  CLI,
  SHIPPING_SPEC_SOURCE as serverSpec,
} from "./support/user-project";

const TEST_FILE = `
import { MCPTestKit, expect } from "jest-m3";
import { testHarness } from ${JSON.stringify(testHarness)};

async function quote(zone: string) {
  await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
  const results = [];
  for (const agent of kit.agents([{ harness: "test", models: ["scripted-1", "scripted-2"] }])) {
    const session = agent.session({ server: ${serverSpec} });
    await using open = await session.open();
    const turn = await open.send('call shipping:shipping_quote {"weight_kg":2,"zone":"' + zone + '"}\\nreply Quoted.');
    results.push({ session, turn });
  }
  return results;
}

describe("shipping", () => {
  test("quotes a local parcel", async () => {
    for (const { session, turn } of await quote("local")) {
      expect(session.result).toHaveToolCall("shipping_quote", { turn, arguments: { weight_kg: 2, zone: "local" } });
    }
  });
  test("quotes <b>the</b> | zone", async () => {
    const expected = process.env.M3_BREAK === "1" ? "regional" : "local";
    for (const { session, turn } of await quote("local")) {
      expect(session.result).toHaveToolCall("shipping_quote", { turn, arguments: { weight_kg: 2, zone: expected } }); // BREAKS HERE
    }
  });
});
`;

let project: string | undefined;
const runs: Array<{ status: number | null; output: string; summary: string }> = [];

beforeAll(() => {
  project = makeUserProject({ "quotes.test.ts": TEST_FILE });
  for (const [index, broken] of [false, true].entries()) {
    const summary = join(project, `summary-${index + 1}.md`);
    const run = runJest(project, {
      env: {
        GITHUB_ACTIONS: "true",
        GITHUB_STEP_SUMMARY: summary,
        GITHUB_WORKSPACE: project,
        ...(broken ? { M3_BREAK: "1" } : {}),
      },
      timeoutMs: 150_000,
    });
    runs.push({
      status: run.status,
      output: run.output,
      summary: existsSync(summary) ? readFileSync(summary, "utf8") : "",
    });
  }
}, 330_000);

afterAll(() => {
  if (!process.env.M3_KEEP) removeTempDir(project);
});

const runIds = (): string[] =>
  readdirSync(join(project!, ".m3", "runs"))
    .filter((id) => !id.startsWith("."))
    .sort();

const AGENTS = ["test 1.0.0 · scripted-1", "test 1.0.0 · scripted-2"];

test("the first run's summary: the grid, all green, and no run before it to compare with", () => {
  const [first] = runs;
  expect([first!.status, first!.output]).toEqual([0, expect.stringContaining("job summary")]);
  const summary = first!.summary;
  expect(summary).toContain(`## jest-m3 run ${markdownCell(runIds()[0])}: ✅ passed`);
  expect(summary).toContain(`| test | ${AGENTS.join(" | ")} |`);
  expect(summary).toContain("| **quotes.test.ts › shipping** | | |");
  expect(summary).toContain("| ✅ quotes a local parcel | ✅ 1/1 | ✅ 1/1 |");
  // Server × tool: each agent called shipping_quote twice, both succeeded.
  expect(summary).toContain("| shipping:shipping\\_quote | ✅ 2/2 | ✅ 2/2 |");
  expect(summary).toContain("The history holds no run before this one.");
  expect(first!.output).not.toContain("::error");
});

test("the second run's summary: the broken test red in the grid, and the regression diff reports", () => {
  const second = runs[1]!;
  expect(second.status).toBe(1);
  const [before, after] = runIds();
  const summary = second.summary;
  expect(summary).toContain(`## jest-m3 run ${markdownCell(after)}: ❌ failed`);
  // The test name's markup and its pipe are text in the table, not markup or a column.
  expect(summary).toContain("| ❌ quotes &lt;b&gt;the&lt;/b&gt; \\| zone | ❌ 0/1 | ❌ 0/1 |");
  expect(summary).toContain(
    `### Regressions against the previous run ${markdownCell(`${before} (green)`)}`,
  );
  // The same regressions `jest-m3 diff` gives for the two runs (its exit code 1 says so).
  const diff = spawnSync(process.execPath, [CLI, "diff", "--json"], {
    cwd: project,
    encoding: "utf8",
  });
  expect(diff.status).toBe(1);
  const regressions = (JSON.parse(diff.stdout) as { regressions: string[] }).regressions;
  expect(regressions.length).toBeGreaterThan(0);
  expect(regressions.join("\n")).toContain("quotes <b>the</b> | zone");
  for (const line of regressions) expect(summary).toContain(`- ${markdownCell(line)}`);
  expect(summary).toContain("<details><summary>jest-m3 diff</summary>");
});

test("the failing test gets an ::error annotation on its line, titled as Jest's github-actions reporter titles it", () => {
  const second = runs[1]!;
  const line = TEST_FILE.split("\n").findIndex((text) => text.includes("// BREAKS HERE")) + 1;
  const annotations = second.output.split("\n").filter((text) => text.startsWith("::error "));
  expect(annotations).toHaveLength(1);
  const annotation = annotations[0]!;
  expect(
    annotation.startsWith(
      `::error file=quotes.test.ts,line=${line},title=shipping › quotes <b>the</b> | zone::`,
    ),
  ).toBe(true);
  // The message is the assertion, on one line (%0A), without the agent transcript.
  expect(annotation).toContain("toHaveToolCall");
  expect(annotation).toContain("%0A");
  expect(annotation).not.toContain("What the agent did");
});

test("the second run's report.html opens on its grid in Chromium: two agents, the broken test red, a click opens it on one agent", async () => {
  const report = join(project!, ".m3", "runs", runIds()[1]!, "report.html");
  const broken = testId("quotes.test.ts", "shipping quotes <b>the</b> | zone");
  await withChromium(async (browser) => {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith("file:")) requests.push(request.url());
    });
    await page.goto(`${pathToFileURL(report).href}#grid`);
    await page.locator("#grid-tests tr.test-row").first().waitFor();
    expect(await page.locator("#grid-tests thead th").allTextContents()).toEqual([
      "test",
      "verdict",
      ...AGENTS,
    ]);
    expect(await page.locator("#grid-tests tr.group").allTextContents()).toEqual([
      "quotes.test.ts › shipping",
    ]);
    const cells = page.locator(`#grid-tests tr[data-test-id="${broken}"] td.cell`);
    expect(await cells.evaluateAll((nodes) => nodes.map((node) => node.className))).toEqual([
      "cell c-failed",
      "cell c-failed",
    ]);
    expect(await page.locator(`#grid-tests tr[data-test-id="${broken}"] th`).textContent()).toBe(
      "quotes <b>the</b> | zone",
    );
    expect(await page.locator("#grid b").count()).toBe(0);
    expect(
      await page
        .locator("#grid-tools tr.tool-row", { hasText: "shipping:shipping_quote" })
        .locator("td.cell")
        .allTextContents(),
    ).toEqual(["✓ 2/2", "✓ 2/2"]);
    await cells.nth(1).click();
    await page.locator("#detail h2", { hasText: "zone" }).waitFor();
    expect(await page.locator("#detail .session").count()).toBe(1);
    expect(await page.locator("#detail .session .agent").textContent()).toContain(
      "model scripted-2",
    );
    expect(requests).toEqual([]);
  });
}, 60_000);
