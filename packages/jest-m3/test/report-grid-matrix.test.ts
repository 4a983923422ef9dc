// The report's grid of a real four-agent matrix run: the shipping example's matrix test on
// Codex, Claude Code, Gemini CLI and OpenCode (the real binaries, the scripted model on
// loopback, the shipping server making real MCP calls), run by Jest as a child process, then
// report.html#grid in headless Chromium: a column per agent, the cells the report's own
// statistics give, the server × tool row, the agent filter, and a click through.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { withChromium } from "./support/chromium";
import { EXAMPLE, exampleRunForFile, runFolder, SHIPPING_SERVER } from "./support/user-project";

const AGENTS =
  "codex=gpt-5.5*2,claude-code=claude-sonnet-5-5,gemini=gemini-scripted,opencode=scripted-model";

const shared = exampleRunForFile(
  {
    "matrix.test.ts": readFileSync(join(EXAMPLE, "matrix.test.ts"), "utf8").replace(
      'args: [join(__dirname, "shipping-server.mjs")]',
      `args: [${JSON.stringify(SHIPPING_SERVER)}]`,
    ),
  },
  { env: () => ({ M3_AGENTS: AGENTS }), timeoutMs: 420_000 },
);

interface StatsRow {
  test: { id: string; fullName: string };
  agent: { harness: string; model: string; version: string | null };
  trials: { run: number; passed: number };
}

test("the grid of a four-agent run: a column per agent, cells as the statistics say, a click opens that agent's sessions", async () => {
  expect([shared.status, shared.output]).toEqual([0, expect.stringContaining("report written to")]);
  const folder = runFolder(shared.project);
  const stats = (
    JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as { stats: StatsRow[] }
  ).stats;
  const label = (row: StatsRow): string =>
    `${row.agent.harness}${row.agent.version ? ` ${row.agent.version}` : ""} · ${row.agent.model}`;
  expect(stats.map((row) => row.agent.harness).sort()).toEqual([
    "claude-code",
    "codex",
    "gemini",
    "opencode",
  ]);
  await withChromium(async (browser) => {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith("file:")) requests.push(request.url());
    });
    await page.goto(`${pathToFileURL(join(folder, "report.html")).href}#grid`);
    await page.locator("#grid-tests tr.test-row").first().waitFor();
    // describeAgents' four blocks are one row: the test, a cell per agent.
    expect(await page.locator("#grid-tests tr.test-row").count()).toBe(1);
    expect(await page.locator("#grid-tests tr.group").allTextContents()).toEqual([
      "matrix.test.ts › shipping quotes",
    ]);
    const headers = (await page.locator("#grid-tests thead th").allTextContents()).slice(2);
    expect(headers).toEqual(stats.map(label).sort());
    // Each cell is its agent's trials passed / run, green when all passed.
    for (const row of stats) {
      const cell = page.locator(
        `#grid-tests td.cell[data-test-id="${row.test.id}"][data-agent="${label(row)}"]`,
      );
      expect((await cell.textContent())!.startsWith(`${row.trials.passed}/${row.trials.run}`)).toBe(
        true,
      );
      expect(await cell.getAttribute("class")).toBe(
        row.trials.passed === row.trials.run
          ? "cell c-passed"
          : row.trials.passed === 0
            ? "cell c-failed"
            : "cell c-partial",
      );
    }
    const codex = stats.find((row) => row.agent.harness === "codex")!;
    expect(codex.trials.run).toBe(2);
    // Every agent called shipping_quote once per trial, successfully.
    const tools = page
      .locator("#grid-tools tr.tool-row", { hasText: "shipping:shipping_quote" })
      .locator("td.cell");
    expect(await tools.allTextContents()).toEqual(
      [...stats]
        .sort((a, b) => label(a).localeCompare(label(b)))
        .map((row) => `✓ ${row.trials.run}/${row.trials.run}`),
    );
    // The agent filter: one column.
    await page.selectOption("#f-agent", label(codex));
    expect(await page.locator("#grid-tests thead th").allTextContents()).toEqual([
      "test",
      "verdict",
      label(codex),
    ]);
    await page.selectOption("#f-agent", "");
    // A click on Codex's cell: that test, Codex's two trial sessions only.
    await page
      .locator(`#grid-tests td.cell[data-test-id="${codex.test.id}"][data-agent="${label(codex)}"]`)
      .click();
    await page.locator("#detail h2", { hasText: "one quote per turn" }).waitFor();
    const sessions = await page.locator("#detail .session .agent").allTextContents();
    expect(sessions).toHaveLength(2);
    for (const text of sessions) expect(text).toContain(`harness codex ${codex.agent.version}`);
    expect(decodeURIComponent(new URL(page.url()).hash)).toBe(
      `#test=${codex.test.id}&agent=${label(codex)}`,
    );
    expect(requests).toEqual([]);
  });
}, 120_000);
