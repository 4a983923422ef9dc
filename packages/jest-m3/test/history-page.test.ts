// `npx jest-m3 show-history` over a history of 31 crafted runs (recorded by the store's own
// code), shown in headless Chromium: the last 30 runs each linked to its report, the pass
// rate charts per test and agent, the flaky and the slowest tests; a test name and an agent
// model full of markup shown as text, nothing executed, no request leaving the page.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { renderReportHtml } from "../dist/report/html";
import type { RunReport } from "../dist/report/model";
import { updateHistory } from "../dist/store/history";
import { insertRun } from "../dist/store/record";
import { craftedRun, type CraftedTest } from "./support/crafted-run";
import { withChromium } from "./support/chromium";
import { REPO, removeTempDir } from "./support/user-project";

const CLI = join(REPO, "packages", "jest-m3", "bin", "jest-m3.js");
const HOSTILE = `<img src=x onerror="window.__pwned=1"></script><script>window.__pwned=2</script> & "quotes" 'too'`;
const HOSTILE_MODEL = "<svg onload=window.__pwned=3>";
const RUNS = 31;

const runId = (n: number): string => `2026-01-${String(n + 1).padStart(2, "0")}-run`;

function run(n: number): RunReport {
  const tests: CraftedTest[] = [
    {
      name: "steady",
      verdict: "passed",
      sessions: [{ model: "m1" }, { model: "m2" }],
    },
    { name: "flaky", verdict: n % 2 === 0 ? "passed" : "failed", sessions: [{ model: "m1" }] },
    {
      name: HOSTILE,
      verdict: "passed",
      sessions: [{ model: HOSTILE_MODEL }],
      trials: [{ model: HOSTILE_MODEL, passed: n % 5, run: 4 }],
    },
    { name: "slow", verdict: "passed" },
  ];
  const report = craftedRun(runId(n), tests);
  const durations: Record<string, number> = { steady: 100, flaky: 50, slow: 5_000 + n };
  return {
    ...report,
    tests: report.tests.map((test) => ({
      ...test,
      durationMs: durations[test.fullName] ?? 10,
    })),
  };
}

let dir: string | undefined;
afterAll(() => removeTempDir(dir));

test("show-history writes one page of the last 30 runs that Chromium shows as charts, links and text", async () => {
  dir = mkdtempSync(join(tmpdir(), "m3-history-page-"));
  const results = join(dir, ".m3");
  mkdirSync(join(results, "runs"), { recursive: true });
  const reports = Array.from({ length: RUNS }, (_, n) => run(n));
  await updateHistory(join(results, "history.sqlite"), (db) => {
    for (const report of reports) insertRun(db, report, null);
  });
  // Every run but the last has its report on disk.
  reports.slice(0, -1).forEach((report, n) => {
    mkdirSync(join(results, "runs", runId(n)));
    writeFileSync(join(results, "runs", runId(n), "report.html"), renderReportHtml(report));
  });

  const cli = spawnSync(
    process.execPath,
    [CLI, "show-history", "--results", results, "--no-open"],
    {
      cwd: dir,
      encoding: "utf8",
    },
  );
  expect([cli.status, cli.stderr]).toEqual([0, ""]);
  const page = cli.stdout.split("\n")[0]!;
  expect(page).toBe(join(results, "history.html"));

  await withChromium(async (browser) => {
    const tab = await browser.newPage();
    const requests: string[] = [];
    tab.on("request", (request) => {
      if (!request.url().startsWith("file:")) requests.push(request.url());
    });
    const problems: string[] = [];
    tab.on("pageerror", (error) => problems.push(error.message));
    tab.on("console", (message) => problems.push(message.text()));
    await tab.goto(pathToFileURL(page).href);

    expect(await tab.locator("#summary").textContent()).toContain("the last 30 of 31 run(s)");
    // The runs, newest first: 30 of them, all but the newest linked to a report that exists.
    const rows = tab.locator("#runs tr.run");
    expect(await rows.count()).toBe(30);
    expect(await rows.first().locator(".run-id").textContent()).toBe(runId(RUNS - 1));
    const links = await tab
      .locator("#runs a.run-link")
      .evaluateAll((nodes) => nodes.map((node) => (node as unknown as { href: string }).href));
    expect(links).toHaveLength(29);
    for (const link of links) expect(existsSync(fileURLToPath(link))).toBe(true);
    expect(links.at(-1)).toBe(pathToFileURL(join(results, "runs", runId(1), "report.html")).href);

    // Pass rate per test and agent: one chart each, one bar per run.
    const series = tab.locator("#series tr.series");
    expect(await series.count()).toBe(4); // steady × 2 agents, flaky, the hostile test
    for (const chart of await series.locator("svg.chart").all()) {
      expect(await chart.locator("rect").count()).toBe(30);
    }
    const flakyBars = await tab
      .locator("#series tr.series", { hasText: "flaky" })
      .locator("rect")
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("class")));
    // Runs 1..30 of 0..30: odd runs failed, even passed.
    expect(flakyBars).toEqual(
      Array.from({ length: 30 }, (_, at) => ((at + 1) % 2 === 0 ? "pass" : "fail")),
    );
    const bar = await tab.locator("#series rect").first().boundingBox();
    expect(bar!.height).toBeGreaterThan(0);

    // Flaky: the alternating test flipped on every run (29 flips of 29 chances); steady did not.
    const flaky = tab.locator("#flaky tr.flaky");
    expect(await flaky.count()).toBe(1);
    expect(
      await flaky
        .locator("td")
        .evaluateAll((cells) => cells.filter((_, at) => at !== 1).map((cell) => cell.textContent)),
    ).toEqual(["flaky", "29", "100%"]);
    // Slowest first.
    expect(await tab.locator("#slowest tr.slow td.name").first().textContent()).toBe("slow");
    expect(await tab.locator("#slowest tr.slow").first().textContent()).toContain("5.03 s");

    // The markup is text: shown as written, nothing of it parsed or run.
    const hostile = tab.locator("#series tr.series", { hasText: "onerror" });
    expect(await hostile.locator("td.name").textContent()).toBe(HOSTILE);
    expect(await hostile.locator("td").nth(1).textContent()).toBe(`test 1.0.0 · ${HOSTILE_MODEL}`);
    expect(await tab.locator("img, script, svg:not(.chart), iframe").count()).toBe(0);
    expect(await tab.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
    // 4 passed of 4 trials in the latest run (30 % 5), summed over the runs shown.
    expect(await hostile.locator("td").nth(3).textContent()).toBe("0/4");

    // A link opens that run's report.
    await tab.locator("#runs a.run-link").first().click();
    await tab.waitForURL(/report\.html$/);
    expect(await tab.title()).toBe(`jest-m3 run ${runId(RUNS - 2)}`);

    expect(requests).toEqual([]);
    expect(problems).toEqual([]);
  });
}, 120_000);

test("show-history without a history says where it looked and exits 1; a bad option is a usage mistake", () => {
  const empty = mkdtempSync(join(tmpdir(), "m3-history-none-"));
  try {
    const none = spawnSync(
      process.execPath,
      [CLI, "show-history", "--results", ".m3", "--no-open"],
      {
        cwd: empty,
        encoding: "utf8",
      },
    );
    expect(none.status).toBe(1);
    expect(none.stderr).toContain(`No run history at ${join(empty, ".m3", "history.sqlite")}`);
    expect(none.stderr).toContain("[M3_STORE_NOT_FOUND]");
    const bad = spawnSync(process.execPath, [CLI, "show-history", "--runs", "0"], {
      cwd: empty,
      encoding: "utf8",
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--runs needs a whole number of runs ≥ 1");
    expect(existsSync(join(empty, ".m3"))).toBe(false);
  } finally {
    removeTempDir(empty);
  }
});
