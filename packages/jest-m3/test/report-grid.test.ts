// The report's test × agent grid on a crafted run of 500 tests on 8 agents, in headless
// Chromium: cells (pass count, rate, Wilson interval, colour), the server × tool rows, the
// filters, a click that opens the test on that agent; open and filter times printed.
import { statSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { buildRunReport, testId } from "../dist/report/build";
import { renderReportHtml } from "../dist/report/html";
import { wilsonInterval } from "../dist/stats/wilson";
import type { TranscriptRecord } from "../dist/shared/transcript";
import { withChromium } from "./support/chromium";
import { sessionRecord } from "./support/blobs";
import { useTempFolder } from "@jest-m3/test-support";

/** Far above what any step takes: only a frozen page fails it (2 shared cores, CI). */
const SANITY_MS = 10_000;

const HARNESSES = ["codex", "claude-code", "gemini", "opencode"];
const AGENTS = HARNESSES.flatMap((harness, index) =>
  ["m-small", "m-large"].map((model) => ({ harness, model, version: `1.${index}.0` })),
);
const label = (agent: (typeof AGENTS)[number]): string =>
  `${agent.harness} ${agent.version} · ${agent.model}`;

const FILES = 10;
const TESTS = 500;
const fileOf = (n: number): string => `/project/suite-${n % FILES}.test.ts`;
const describeOf = (n: number): string => `area ${Math.floor(n / 100)}`;
const titleOf = (n: number): string => `case ${n}`;

/** Test n failed when n % 7 === 1; ran 5 trials on each agent (3 passed) when n % 50 === 0. */
function crafted(): ReturnType<typeof buildRunReport> {
  const sessions: TranscriptRecord[] = [];
  const trials: Array<NonNullable<Parameters<typeof buildRunReport>[0]["trials"]>[number]> = [];
  for (let n = 0; n < TESTS; n += 1) {
    AGENTS.forEach((agent, a) => {
      const session = {
        testPath: fileOf(n),
        testName: `${describeOf(n)} ${titleOf(n)}`,
        executionId: `e-${n}-${a}`,
        agent: `${agent.harness}:${agent.model}`,
        model: agent.model,
        harness: agent.harness,
        version: agent.version,
        sessionId: `s-${n}-${a}`,
        catalogs: [{ server: "shop", tools: [{ name: "search", schemaHash: "h" }] }],
      };
      sessions.push(
        sessionRecord(session, {
          prompt: `find item ${n}`,
          reply: `found ${n}`,
          durationMs: 100,
          toolCalls: [
            {
              id: "call-1",
              server: "shop",
              tool: "search",
              arguments: JSON.stringify({ q: n }),
              status: "success",
              evidence: "both",
            },
            // Agent 7 calls checkout and it always fails; agent 6 never calls it.
            ...(a === 7 || (a < 6 && n % 10 === 0)
              ? [
                  {
                    id: "call-2",
                    server: "shop",
                    tool: "checkout",
                    arguments: "{}",
                    status: a === 7 ? "tool_error" : "success",
                    evidence: "both",
                  },
                ]
              : []),
          ],
        }),
      );
      if (n % 50 === 0) {
        trials.push({
          testPath: fileOf(n),
          testName: `${describeOf(n)} ${titleOf(n)}`,
          agent,
          trials: 5,
          passed: 3,
          interval: wilsonInterval(3, 5),
          need: "at least 3 of 5",
        });
      }
    });
  }
  const files = Array.from({ length: FILES }, (_, f) => ({
    testFilePath: `/project/suite-${f}.test.ts`,
    testResults: Array.from({ length: TESTS / FILES }, (_, k) => k * FILES + f).map((n) => ({
      fullName: `${describeOf(n)} ${titleOf(n)}`,
      title: titleOf(n),
      status: n % 7 === 1 ? "failed" : "passed",
      duration: 100,
      failureMessages: n % 7 === 1 ? ["expected a call"] : [],
    })),
  }));
  return buildRunReport({
    rootDir: "/project",
    run: { runId: "grid-run" },
    files,
    sessions,
    trials,
    success: false,
    startedAt: Date.now(),
    secrets: [],
  });
}

async function gridRows(page: Page, count: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    if ((await page.locator("#grid-tests tr.test-row").count()) === count)
      return Date.now() - started;
    if (Date.now() - started > 30_000) throw new Error(`the grid never showed ${count} rows`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const folder = useTempFolder("m3-report-grid-");

test("a 500 × 8 grid opens, colours its cells, filters and clicks through in Chromium", async () => {
  const file = folder("report.html");
  const report = crafted();
  expect(report.tests).toHaveLength(TESTS);
  writeFileSync(file, renderReportHtml(report));
  const sizeMb = statSync(file).size / 1024 / 1024;
  const timings: Record<string, number> = {};
  await withChromium(async (browser) => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await page.setViewportSize({ width: 1400, height: 900 });
    let started = Date.now();
    await page.goto(`${pathToFileURL(file).href}#grid`);
    await gridRows(page, TESTS);
    timings.openGrid = Date.now() - started;
    timings.gridRenderInPage = Math.round(
      await page.evaluate(() =>
        (globalThis as unknown as { m3Report: { gridMs: () => number } }).m3Report.gridMs(),
      ),
    );

    // Columns: the 8 agents, by harness, version and model.
    const headers = await page.locator("#grid-tests thead th").allTextContents();
    expect(headers).toEqual(["test", "verdict", ...AGENTS.map(label).sort()]);
    // Grouped by file and describe block: 10 files × 5 describe blocks.
    expect(await page.locator("#grid-tests tr.group").count()).toBe(FILES * 5);
    expect(await page.locator("#grid-tests td.cell").count()).toBe(TESTS * AGENTS.length);

    // Test 0 ran 5 trials on every agent, 3 passed: rate and Wilson interval, amber.
    const [low, high] = wilsonInterval(3, 5).map((v) => `${Math.round(v * 100)}%`);
    const first = page.locator(
      `#grid-tests tr.test-row[data-test-id="${testId("suite-0.test.ts", "area 0 case 0")}"] td.cell`,
    );
    expect(await first.first().textContent()).toBe(`3/5 60%${low}–${high}`);
    expect(await first.first().getAttribute("class")).toBe("cell c-partial");
    // A one-trial test: green where it passed, red where it failed.
    const passedRow = page.locator(
      `#grid-tests tr.test-row[data-test-id="${testId("suite-9.test.ts", "area 0 case 19")}"] td.cell`,
    );
    expect(await passedRow.first().textContent()).toBe("1/1");
    expect(await passedRow.first().getAttribute("class")).toBe("cell c-passed");
    const failedRow = page.locator(
      `#grid-tests tr.test-row[data-test-id="${testId("suite-1.test.ts", "area 0 case 1")}"] td.cell`,
    );
    expect(await failedRow.first().getAttribute("class")).toBe("cell c-failed");

    // Server × tool: search succeeded everywhere; checkout failed on one agent, never called on another.
    const toolRow = (tool: string) =>
      page.locator("#grid-tools tr.tool-row", { hasText: `shop:${tool}` }).locator("td.cell");
    expect(await toolRow("search").allTextContents()).toEqual(
      AGENTS.map(() => `✓ ${TESTS}/${TESTS}`),
    );
    const checkout = await toolRow("checkout").allTextContents();
    const sorted = AGENTS.map(label).sort();
    expect(checkout[sorted.indexOf(label(AGENTS[7]!))]).toBe(`✗ 0/${TESTS}`);
    expect(checkout[sorted.indexOf(label(AGENTS[6]!))]).toBe("·");
    expect(checkout[sorted.indexOf(label(AGENTS[0]!))]).toBe(`✓ ${TESTS / 10}/${TESTS / 10}`);

    started = Date.now();
    await page.selectOption("#f-verdict", "passed");
    await gridRows(page, report.tests.filter((test) => test.verdict === "passed").length);
    timings.filterVerdict = Date.now() - started;

    started = Date.now();
    await page.selectOption("#f-verdict", "");
    await page.selectOption("#f-agent", label(AGENTS[3]!));
    await gridRows(page, TESTS);
    expect(await page.locator("#grid-tests td.cell").count()).toBe(TESTS);
    timings.filterAgent = Date.now() - started;

    started = Date.now();
    await page.fill("#f-search", "find item 417");
    await gridRows(page, 1); // includes the 120 ms typing pause
    timings.search = Date.now() - started;
    await page.fill("#f-search", "");
    await page.selectOption("#f-agent", "");
    await gridRows(page, TESTS);

    // A click opens that test on that agent: its detail, that agent's session only.
    started = Date.now();
    const target = label(AGENTS[5]!);
    await page
      .locator(
        `#grid-tests tr.test-row[data-test-id="${testId("suite-3.test.ts", "area 4 case 443")}"] td.cell[data-agent="${target}"]`,
      )
      .click();
    await page.locator("#detail h2", { hasText: "area 4 case 443" }).waitFor();
    timings.clickThrough = Date.now() - started;
    expect(await page.locator("#grid").isHidden()).toBe(true);
    expect(await page.locator("#detail .session").count()).toBe(1);
    expect(await page.locator("#detail .session .agent").textContent()).toContain(
      `harness ${AGENTS[5]!.harness} ${AGENTS[5]!.version} · model ${AGENTS[5]!.model}`,
    );
    expect(await page.locator("#f-agent").inputValue()).toBe(target);
    expect(decodeURIComponent(new URL(page.url()).hash)).toBe(
      `#test=${testId("suite-3.test.ts", "area 4 case 443")}&agent=${target}`,
    );

    // Back to the grid, then a tool cell: the tests that called it, on that agent.
    // Back to the grid: the agent filter of the click still holds (one column), until cleared.
    await page.click("#tab-grid");
    await gridRows(page, TESTS);
    expect(await page.locator("#grid-tests td.cell").count()).toBe(TESTS);
    await page.selectOption("#f-agent", "");
    expect(await page.locator("#grid-tests td.cell").count()).toBe(TESTS * AGENTS.length);
    await page
      .locator("#grid-tools tr.tool-row", { hasText: "shop:checkout" })
      .locator(`td.cell[data-agent="${label(AGENTS[0]!)}"]`)
      .click();
    await page.locator("#list .row").first().waitFor();
    expect(await page.locator("#count").textContent()).toBe(`${TESTS} of ${TESTS} tests`);
    expect(await page.locator("#f-tool").inputValue()).toBe("checkout");
    expect(errors).toEqual([]);
  });
  console.log(
    `500 × 8 grid (${sizeMb.toFixed(1)} MB report) in headless Chromium, ms: ${JSON.stringify(timings)}`,
  );
  for (const [step, ms] of Object.entries(timings)) {
    expect([step, ms < SANITY_MS]).toEqual([step, true]);
  }
}, 180_000);

/** Markup that runs script if a page writes it raw, each setting `window.__m3pwned`. */
const PAYLOADS = [
  "<img src=x onerror=\"window.__m3pwned='img'\">",
  '"><svg onload="window.__m3pwned=\'svg\'">',
  "</script><script>window.__m3pwned='script'</script>",
  "' onmouseover='window.__m3pwned=\"attr\"' x='",
  '<iframe srcdoc="<script>parent.__m3pwned=1</script>"></iframe>',
];
const ALL = PAYLOADS.join(" ");

test("the grid writes markup in names, agents, servers, tools and number fields as text, and runs none of it", async () => {
  const hostile = (field: string): string => `${field}:${ALL}`;
  const session = sessionRecord(
    {
      testPath: `/project/${hostile("file")}.test.ts`,
      testName: `${hostile("describe")} ${hostile("title")}`,
      executionId: "e-1",
      agent: hostile("agent"),
      model: hostile("model"),
      harness: hostile("harness"),
      version: hostile("version"),
      sessionId: "s-1",
      catalogs: [
        { server: hostile("server"), tools: [{ name: hostile("listed"), schemaHash: "h" }] },
      ],
    },
    {
      toolCalls: [
        {
          id: "call-1",
          server: hostile("server"),
          tool: hostile("tool"),
          arguments: "{}",
          status: "success",
          evidence: "both",
        },
      ],
    },
  );
  const built = buildRunReport({
    rootDir: "/project",
    run: { runId: "hostile-grid" },
    files: [
      {
        testFilePath: session.testPath,
        testResults: [
          {
            fullName: session.testName,
            title: hostile("title"),
            status: "failed",
            failureMessages: ["boom"],
          },
        ],
      },
    ],
    sessions: [session],
    success: false,
    startedAt: Date.now(),
    secrets: [],
  });
  // Number fields carrying markup, as a hand-made blob would.
  const report = {
    ...built,
    tests: built.tests.map((test) => ({
      ...test,
      stats: (test.stats ?? []).map((row) => ({
        ...row,
        trials: {
          ...row.trials,
          passed: hostile("passed") as unknown as number,
          run: hostile("run") as unknown as number,
          interval: [hostile("low"), hostile("high")] as unknown as [number, number],
        },
      })),
    })),
  };
  const file = folder("hostile.html");
  writeFileSync(file, renderReportHtml(report));
  await withChromium(async (browser) => {
    const page = await browser.newPage();
    const events: string[] = [];
    page.on("dialog", (dialog) => {
      events.push(`dialog ${dialog.message()}`);
      void dialog.dismiss();
    });
    page.on("pageerror", (error) => events.push(`error ${error.message}`));
    page.on("console", (message) => events.push(`console ${message.text()}`));
    await page.goto(`${pathToFileURL(file).href}#grid`);
    await page.locator("#grid-tests tr.test-row").waitFor();
    await page.locator("#grid td.cell").first().hover();
    const grid = page.locator("#grid");
    expect(await grid.locator("img, svg, iframe, script").count()).toBe(0);
    const text = (await grid.textContent()) ?? "";
    for (const field of ["describe", "title", "server", "tool", "listed", "passed", "run"]) {
      expect([field, text.includes(hostile(field))]).toEqual([field, true]);
    }
    expect(await page.locator("#grid-tests thead th").nth(2).textContent()).toBe(
      `${hostile("harness")} ${hostile("version")} · ${hostile("model")}`,
    );
    // A click on the hostile cell still opens the test on that agent.
    await page.locator("#grid-tests td.cell").first().click();
    await page.locator("#detail h2").waitFor();
    expect(await page.locator("#detail .session").count()).toBe(1);
    expect(
      await page.evaluate(() => (globalThis as { __m3pwned?: unknown }).__m3pwned),
    ).toBeUndefined();
    expect(events).toEqual([]);
  });
}, 120_000);
