// The report of a real run (Codex on the run's scripted model, the project the docs'
// screenshots are taken of, scripts/screenshots/), in headless Chromium: each session of
// trials() labelled `trial k of n` with the failing trial marked (and the console transcript
// saying the same), a direct test's calls and messages, tokens and cost p50/p95 from the
// project's price table, the catalog's context cost per server and agent; a crafted run
// whose cost is unavailable; and scripts/screenshots.mjs: its images are exactly the ones
// the docs show, and its rendering part writes them from this run.
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { buildRunReport } from "../dist/report/build";
import { renderReportHtml } from "../dist/report/html";
import type { RunReport } from "../dist/report/model";
import { formatTranscript, type TranscriptRecord } from "../dist/shared/transcript";
import { readRecords } from "../dist/shared/run-ledger";
import { withChromium } from "./support/chromium";
import { REPO, removeTempDir, runFolder, runJest } from "./support/user-project";

const SCRIPT = join(REPO, "scripts", "screenshots.mjs");
const TRIALS = "quotes a local parcel in each of 3 trials";
const FAILING = "quotes a regional parcel";
const DIRECT = "a direct call quotes 9 USD";
/** m3.config.json's price of gpt-5.5 in the project, per million tokens. */
const PRICE = { input: 1.25, output: 10, cached: 0.125 };

jest.setTimeout(240_000);

function script(...args: string[]): string {
  const run = spawnSync(process.execPath, [SCRIPT, ...args], {
    encoding: "utf8",
    timeout: 200_000,
  });
  if (run.status !== 0) throw new Error(`screenshots ${args.join(" ")}:\n${run.stderr}`);
  return run.stdout;
}

/** Every image a doc of the repository shows (`![…](path)`), relative to the repository. */
function imagesInDocs(): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(dir).flatMap((entry) => {
      const path = join(dir, entry);
      return statSync(path).isDirectory() ? docs(path) : path.endsWith(".md") ? [path] : [];
    });
  const found = new Set<string>();
  for (const file of [...docs(join(REPO, "docs")), join(REPO, "README.md")]) {
    for (const match of readFileSync(file, "utf8").matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)) {
      found.add(relative(REPO, resolve(file, "..", match[1]!)));
    }
  }
  return [...found].sort();
}

/** A PNG's width and height, read from its header (and proof that it is one). */
function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file);
  expect(bytes.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

let project: string | undefined;
let run: string;
let output: string;
let report: RunReport;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "jest-m3-shots-project-"));
  script("--project", project);
  const jest = runJest(project, { timeoutMs: 200_000 });
  output = jest.output;
  expect(jest.status).toBe(1); // two tests fail on purpose
  run = runFolder(project);
  const html = readFileSync(join(run, "report.html"), "utf8");
  const data = /<script type="application\/json" id="m3-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
  report = JSON.parse(data) as RunReport;
}, 230_000);

afterAll(() => {
  if (!process.env.M3_KEEP) removeTempDir(project);
});

const testNamed = (name: string) => report.tests.find((test) => test.fullName === name)!;

test("the run's header names no folder of the machine: the model's script is relative to the project", () => {
  expect(report.provider).toMatch(/\(offline, from [^/][^)]*\.json\)$/);
  expect(report.provider).not.toContain(project!);
});

async function openReport<T>(hash: string, use: (page: Page) => Promise<T>): Promise<T> {
  return withChromium(async (browser) => {
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith("file:")) outside.push(request.url());
    });
    await page.goto(`${pathToFileURL(join(run, "report.html")).href}#${hash}`);
    await page.waitForFunction("window.m3Report && window.m3Report.ready");
    const result = await use(page);
    expect(outside).toEqual([]);
    return result;
  });
}

test("each session of trials() is labelled trial k of n, the failing trial marked, as the trials ledger says", async () => {
  const ledger = readRecords<{
    testName: string;
    trials: number;
    verdicts: Array<{ trial: number; passed: boolean }>;
  }>(run, "trials").find((record) => record.testName === TRIALS)!;
  expect(ledger.trials).toBe(3);
  const failed = ledger.verdicts.filter((v) => !v.passed).map((v) => v.trial);
  expect(failed).toEqual([2]); // the project's trial 2 fails on purpose

  const test = testNamed(TRIALS);
  expect(test.sessions.map((session) => session.trialOf)).toEqual([
    { trial: 1, of: 3, passed: true },
    { trial: 2, of: 3, passed: false },
    { trial: 3, of: 3, passed: true },
  ]);
  const shown = await openReport(`test=${test.id}`, async (page) => {
    const sessions = await page.locator("#detail .session").all();
    return Promise.all(
      sessions.map(async (node) => ({
        label: await node.locator("h3 .trial").textContent(),
        failed: ((await node.getAttribute("class")) ?? "").split(" ").includes("trial-failed"),
      })),
    );
  });
  expect(shown).toEqual([
    { label: "trial 1 of 3 · passed", failed: false },
    { label: "trial 2 of 3 · failed", failed: true },
    { label: "trial 3 of 3 · passed", failed: false },
  ]);
  // The console transcript of the failed test, on stderr as Jest's run printed it.
  expect(output).toContain(`● ${TRIALS} — what the agent did`);
  expect(output).toContain("jest-m3 transcript · codex:gpt-5.5 · trial 1 of 3 (passed) · session");
  expect(output).toContain("jest-m3 transcript · codex:gpt-5.5 · trial 2 of 3 (failed) · session");
  expect(output).toContain("✗ the failing trial: trial 2 of 3 (failed)");
  // A test outside trials has no label.
  expect(testNamed(FAILING).sessions[0]!.trialOf).toBeUndefined();
});

test("a direct test shows its calls and their JSON-RPC messages like a session's", async () => {
  const test = testNamed(DIRECT);
  expect(test.sessions).toEqual([]);
  expect(test.direct).toHaveLength(1);
  const calls = test.direct![0]!.turns[0]!.toolCalls;
  expect(calls.map((call) => [call.tool, call.arguments, call.status])).toEqual([
    ["shipping_quote", '{"weight_kg":2,"zone":"local"}', "success"],
    ["shipping_quote", '{"weight_kg":-1,"zone":"local"}', "tool_error"],
  ]);
  // The console transcript a failed direct test gets: its calls, no agent.
  expect(formatTranscript(test.direct![0]!).split("\n")).toEqual([
    expect.stringMatching(
      /^jest-m3 transcript · direct client of shipping: \d+ JSON-RPC message\(s\) \(initialize, .*tools\/call\)$/,
    ),
    '  tool call: shipping:shipping_quote {"weight_kg":2,"zone":"local"} → success',
    expect.stringMatching(
      /^ {2}tool call: shipping:shipping_quote \{"weight_kg":-1,"zone":"local"\} → tool_error: ./,
    ),
  ]);
  const seen = await openReport(`test=${test.id}`, async (page) => {
    const text = await page.textContent("#detail");
    const trs = await page.locator("#detail .session.direct table.calls tr.call").all();
    const rows = await Promise.all(trs.map((tr) => tr.locator("td").allTextContents()));
    await page.click("#detail .session.direct table.calls tr.call >> nth=1");
    const messages = await page.textContent("#detail tr.messages");
    return { text, rows, messages };
  });
  expect(seen.text).not.toContain("ran no agent sessions");
  expect(seen.text).toContain("direct client · shipping");
  expect(seen.rows.map((row) => [row[2], row[3], row[4], row[6]])).toEqual([
    ["shipping", "shipping_quote", '{"weight_kg":2,"zone":"local"}', "success"],
    ["shipping", "shipping_quote", '{"weight_kg":-1,"zone":"local"}', "tool_error"],
  ]);
  // The request as it crossed the wire, and the server's answer: a tool error.
  expect(seen.messages).toContain("→ to server · request");
  expect(seen.messages).toContain('"weight_kg": -1');
  expect(seen.messages).toContain("← from server · response");
  expect(seen.messages).toContain('"isError": true');
});

test("per test and agent, tokens and cost p50/p95 from the price table; per server and agent, the catalog's context cost", async () => {
  const test = testNamed(TRIALS);
  const [row] = test.stats!;
  // Ground truth for tokens: the run's scripted model journal, whose usage the script set.
  const journal = JSON.parse(readFileSync(join(run, "model-journal.json"), "utf8")) as {
    entries: Array<{ usage?: { inputTokens: number; outputTokens: number } }>;
  };
  const served = journal.entries.reduce(
    (sum, entry) => sum + (entry.usage ? entry.usage.inputTokens + entry.usage.outputTokens : 0),
    0,
  );
  const sessions = report.tests.flatMap((t) => t.sessions);
  expect(sessions.reduce((sum, s) => sum + (s.usage?.totalTokens ?? 0), 0)).toBe(served);
  const totals = test.sessions.map((s) => s.usage!.totalTokens).sort((a, b) => a - b);
  expect(row!.tokens).toEqual({ p50: totals[1], p95: totals[2], sessions: 3 });

  // Cost: the project's price table over each session's model requests, computed here.
  const costOf = (session: TranscriptRecord): number =>
    session.turns
      .flatMap((turn) => turn.modelRequests ?? [])
      .reduce((sum, request) => {
        const u = request.usage!;
        const cached = u.cachedInputTokens ?? 0;
        return (
          sum +
          ((u.inputTokens - cached) * PRICE.input +
            cached * PRICE.cached +
            u.outputTokens * PRICE.output) /
            1e6
        );
      }, 0);
  for (const session of test.sessions) {
    expect(session.modelRequestCount).toBe(session.turns[0]!.modelRequests!.length);
    expect(session.cost).toBeCloseTo(costOf(session), 12);
    expect(session.cost).toBeGreaterThan(0);
  }
  const costs = test.sessions.map(costOf).sort((a, b) => a - b);
  expect(row!.cost).toEqual({
    p50: expect.closeTo(costs[1]!, 12),
    p95: expect.closeTo(costs[2]!, 12),
  });

  const catalog = test.sessions[0]!.catalogCost!.servers.find((s) => s.server === "shipping")!;
  expect(catalog.bytes).toBeGreaterThan(0);
  const shown = await openReport(`test=${test.id}`, async (page) => {
    const cells = await page.locator("#detail table.stats tr.stats-row td").allTextContents();
    await page.click("#tab-grid");
    const catalogCell = await page.textContent(
      '#grid-catalogs td.catalog-cell[data-server="shipping"]',
    );
    return { cells, catalogCell };
  });
  const money = (v: number) => (v < 0.01 ? v.toPrecision(2) : v.toFixed(4));
  expect(shown.cells).toContain(`${row!.tokens!.p50} / ${row!.tokens!.p95}`);
  expect(shown.cells).toContain(`${money(costs[1]!)} / ${money(costs[2]!)}`);
  // Every Codex session of the run measured the same catalog: its median is that.
  const measured = sessions.filter((s) => s.catalogCost).length;
  expect(shown.catalogCell).toBe(
    `${catalog.bytes} B · ~${catalog.estimatedTokens} tok (${measured})`,
  );
});

test("a cost that is unavailable is shown as such, never 0 (crafted run)", async () => {
  const session = (name: string, cost: number | null, costNote: string | null) =>
    ({
      testPath: "/p/a.test.ts",
      testName: name,
      executionId: `e-${name}`,
      agent: "codex:m1",
      model: "m1",
      harness: "codex",
      version: "1.0.0",
      sessionId: "s",
      outcome: "completed",
      error: null,
      gaps: [],
      usage: {
        inputTokens: 10,
        outputTokens: 2,
        totalTokens: 12,
        cachedInputTokens: null,
        reasoningTokens: null,
        source: "provider",
        requests: 1,
      },
      cost,
      costNote,
      turns: [],
      outsideTurns: 0,
    }) satisfies TranscriptRecord;
  const crafted = buildRunReport({
    rootDir: "/p",
    run: null,
    files: [
      {
        testFilePath: "/p/a.test.ts",
        testResults: ["priced", "unpriced"].map((name) => ({
          fullName: name,
          title: name,
          status: "passed",
        })),
      },
    ],
    sessions: [
      session("priced", 0.5, null),
      session("unpriced", null, 'no price for model "m1" (the price table has "m2")'),
    ],
    success: true,
    startedAt: null,
    secrets: [],
  });
  const byName = (name: string) => crafted.tests.find((t) => t.fullName === name)!;
  expect(byName("priced").stats![0]!.cost).toEqual({ p50: 0.5, p95: 0.5 });
  expect(byName("unpriced").stats![0]!.cost).toEqual({
    unavailable: 'no price for model "m1" (the price table has "m2")',
  });
  const dir = mkdtempSync(join(tmpdir(), "jest-m3-cost-"));
  try {
    const file = join(dir, "report.html");
    writeFileSync(file, renderReportHtml(crafted));
    const cell = await withChromium(async (browser) => {
      const page = await browser.newPage();
      await page.goto(`${pathToFileURL(file).href}#test=${byName("unpriced").id}`);
      return page.textContent("#detail table.stats td.cost");
    });
    expect(cell).toBe('unavailable: no price for model "m1" (the price table has "m2")');
    expect(cell).not.toMatch(/\b0(\.0+)?\b/);
  } finally {
    removeTempDir(dir);
  }
});

test("the screenshots: the script writes exactly the images the docs show, and renders them from a real run", () => {
  const listed = (JSON.parse(script("--list")) as string[]).sort();
  expect(listed).toEqual(imagesInDocs());
  for (const file of listed) {
    expect(existsSync(join(REPO, file))).toBe(true); // committed, as the docs link them
    expect(statSync(join(REPO, file)).size).toBeLessThan(400_000);
  }
  const out = mkdtempSync(join(tmpdir(), "jest-m3-shots-"));
  try {
    const written = JSON.parse(script("--render", project!, "--out", out)) as Array<{
      file: string;
      bytes: number;
    }>;
    expect(written.map((shot) => shot.file).sort()).toEqual(listed);
    for (const shot of written) {
      const size = pngSize(join(out, shot.file));
      expect(size.width).toBeGreaterThan(600);
      expect(size.height).toBeGreaterThan(200);
      expect(shot.bytes).toBeGreaterThan(10_000); // drawn, not blank
    }
    // A full-page shot is the viewport the script sets.
    expect(pngSize(join(out, "docs/images/report-grid.png"))).toEqual({ width: 1280, height: 760 });
  } finally {
    removeTempDir(out);
  }
});
