// Script injection into the HTML report, tried three ways, each opened in headless
// Chromium with a watch on dialogs, page errors, console messages and a window flag the
// payloads set:
// 1. a real run (a user's project run by Jest, sessions through the test harness making real
//    MCP calls) whose test names, prompts, tool arguments, tool errors and agent replies are
//    markup: shown as text, nothing runs;
// 2. a report whose number-typed fields (counts, a turn's number, a session's outsideTurns,
//    trial counts) hold markup, as a hand-made blob would carry them past a careless reader:
//    the page writes every value through its one escaping path, so they too are text;
// 3. a shard's blob whose every text field is markup (the fields the blob's schema lets be
//    any text): merge-reports takes it, and its merged report runs nothing;
// 4. the page's content security policy: an inline event handler put into the page (as an
//    escaping bug would) is blocked, while the page's own script and styles (by hash) run.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { renderReportHtml } from "../dist/report/html";
import type { RunReport } from "../dist/report/model";
import { validBlob } from "./support/blobs";
import { withChromium } from "./support/chromium";
import {
  makeUserProject,
  removeTempDir,
  runFolder,
  runJest,
  TEST_HARNESS as testHarness,
  CLI,
  SHIPPING_SPEC_SOURCE as serverSpec,
} from "./support/user-project";

/** Markup that runs script if a page writes it raw, each setting `window.__m3pwned`. */
const PAYLOADS = [
  "<img src=x onerror=\"window.__m3pwned='img';alert('img')\">",
  "\"><svg onload=\"window.__m3pwned='svg';alert('svg')\">",
  "</script><script>window.__m3pwned='script';alert('script')</script>",
  "' onmouseover='window.__m3pwned=\"attr\"' x='",
  '<iframe srcdoc="<script>parent.__m3pwned=1</script>"></iframe>',
];
const ALL = PAYLOADS.join(" ");

const PROJECT = {
  "inject.test.ts": `
import { MCPTestKit, expect } from "jest-m3";
import { testHarness } from ${JSON.stringify(testHarness)};
const ALL = ${JSON.stringify(ALL)};
describe(ALL, () => {
  test(ALL, async () => {
    await using kit = new MCPTestKit({ env: {}, harnesses: [testHarness()] });
    const [agent] = kit.agents([{ harness: "test", models: ["scripted-1"] }]);
    const session = agent!.session({ server: ${serverSpec} });
    let turn;
    {
      await using open = await session.open();
      turn = await open.send(
        "prompt " + ALL + "\\n" +
        "call shipping:shipping_quote " + JSON.stringify({ weight_kg: 2, zone: ALL }) + "\\n" +
        "call shipping:shipping_quote " + JSON.stringify({ weight_kg: 2, zone: "local", note: ALL }) + "\\n" +
        "reply " + ALL,
      );
    }
    // Fails on purpose: its message (with the calls' arguments) is in the report too.
    expect(session.result).toHaveToolCall("shipping_quote", { turn, arguments: { weight_kg: 3, zone: ALL } });
  });
});
`,
};

let project: string | undefined;
let folder: string | undefined;
let report: string;

beforeAll(() => {
  project = makeUserProject(PROJECT);
  const run = runJest(project, { timeoutMs: 150_000 });
  expect(run.status).toBe(1); // the one test fails on purpose
  report = join(runFolder(project), "report.html");
  folder = mkdtempSync(join(tmpdir(), "m3-report-injection-"));
}, 180_000);

afterAll(() => {
  if (!process.env.M3_KEEP) removeTempDir(project);
  removeTempDir(folder);
});

/** The few browser globals the page functions below use (the tests compile without DOM types). */
interface BrowserElement {
  readonly textContent: string | null;
  insertAdjacentHTML(where: "beforeend", markup: string): void;
  appendChild(child: BrowserElement): void;
}
interface BrowserGlobals {
  readonly __m3pwned?: unknown;
  readonly m3Report?: { readonly ready?: boolean };
  readonly document: {
    readonly body: BrowserElement;
    getElementById(id: string): BrowserElement | null;
    querySelector(selector: string): BrowserElement | null;
    createElement(tag: "script"): BrowserElement & { textContent: string | null };
  };
  getComputedStyle(element: BrowserElement): { readonly position: string };
}

/** What a page did that it must not: dialogs, page errors, and the payloads' flag. */
interface Watch {
  readonly dialogs: string[];
  readonly errors: string[];
  readonly console: string[];
}

async function open(page: Page, url: string): Promise<Watch> {
  const watch: Watch = { dialogs: [], errors: [], console: [] };
  page.on("dialog", (dialog) => {
    watch.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => watch.errors.push(error.message));
  page.on("console", (message) => watch.console.push(message.text()));
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto(url);
  await waitFor(page, () => (globalThis as unknown as BrowserGlobals).m3Report?.ready === true);
  return watch;
}

/** Waits for `predicate` in the page (evaluated through the debugger, not the page's eval). */
async function waitFor(page: Page, predicate: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await page.evaluate(predicate)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the page never got to ${predicate.toString()}`);
}

const pwned = (page: Page): Promise<unknown> =>
  page.evaluate(() => (globalThis as unknown as BrowserGlobals).__m3pwned ?? null);

/** Hovers and clicks over everything the detail pane shows, to fire any handler in it. */
async function poke(page: Page): Promise<void> {
  for (const selector of ["#list .row", "#detail h2", "#detail pre", "#detail td", "#detail h4"]) {
    const all = page.locator(selector);
    const n = Math.min(await all.count(), 12);
    for (let index = 0; index < n; index += 1) await all.nth(index).hover({ timeout: 5_000 });
  }
}

/**
 * After {@link poke}: no markup element in the page's main part (or in `inside`), the
 * payloads' flag unset, no dialog and no page error.
 */
async function expectNothingRan(page: Page, watch: Watch, inside = "main"): Promise<void> {
  await poke(page);
  const elements = ["img", "svg", "iframe", "script"].map((tag) => `${inside} ${tag}`);
  expect(await page.locator(elements.join(", ")).count()).toBe(0);
  expect(await pwned(page)).toBeNull();
  expect(watch.dialogs).toEqual([]);
  expect(watch.errors).toEqual([]);
}

test("a real run whose names, prompts, arguments, errors and replies are markup: shown as text, nothing runs", async () => {
  const html = readFileSync(report, "utf8");
  for (const payload of PAYLOADS) expect(html).not.toContain(payload); // never raw in the file
  await withChromium(async (browser) => {
    const page = await browser.newPage();
    const watch = await open(page, pathToFileURL(report).href);
    const detail = page.locator("#detail");
    // The failed test is selected: its name, failure, prompt, calls and reply are on screen.
    const shown = (await detail.textContent()) ?? "";
    expect(shown).toContain(`${ALL} ${ALL}`); // describe + test name as Jest joins them
    expect(shown).toContain(`prompt ${ALL}`);
    expect(shown).toContain(ALL.slice(0, 40));
    const reply = (await detail.locator("pre.reply").textContent()) ?? "";
    expect(reply).toBe(ALL);
    const rows = detail.locator("tr.call");
    await expect(rows.count()).resolves.toBe(2);
    // A call's JSON-RPC messages, opened.
    await rows.nth(0).click();
    await expect(detail.locator("tr.messages").count()).resolves.toBe(1);
    // Filters filled from the data, and a search for the markup.
    await page.fill("#f-search", "onerror");
    // The search re-renders the detail (closing the messages row) once it applies.
    await waitFor(
      page,
      () =>
        (globalThis as unknown as BrowserGlobals).document.querySelector("#detail tr.messages") ===
        null,
    );
    expect(await page.locator("#count").textContent()).toBe("1 of 1 tests");
    await expectNothingRan(page, watch, "#detail");
    expect(await page.locator("#list img, #list svg, #list iframe").count()).toBe(0);
  });
}, 120_000);

/** A report whose number-typed fields hold markup (what a crafted blob would carry). */
function craftedReport(): RunReport {
  const [img, svg, script, attr, frame] = PAYLOADS as [string, string, string, string, string];
  const call = {
    id: img,
    server: svg,
    tool: script,
    arguments: attr,
    status: img,
    evidence: svg,
    result: frame,
    error: null,
    latencyMs: img,
    offsetMs: svg,
    messages: [{ direction: img, kind: svg, afterMs: script, json: attr, origin: frame }],
  };
  const session = {
    testPath: "/p/a.test.ts",
    testName: "crafted",
    executionId: img,
    agent: svg,
    model: script,
    harness: attr,
    version: frame,
    sessionId: img,
    provider: { name: svg, baseUrl: script, dialect: attr },
    outcome: img,
    error: svg,
    durationMs: script,
    gaps: [attr],
    turns: [
      {
        number: img,
        outcome: svg,
        prompt: script,
        reply: attr,
        error: frame,
        durationMs: img,
        gaps: [svg],
        toolCalls: Array.from({ length: 101 }, () => call),
      },
    ],
    outsideTurns: img,
  };
  const stats = {
    agent: { harness: img, model: svg, version: script },
    trials: { run: img, passed: svg, rate: script, interval: [attr, frame] },
    sessions: img,
    turns: svg,
    turnLatencyMs: { p50: img, p95: svg },
    toolCalls: { total: script, perSession: { mean: attr, p50: frame, p95: img, max: svg } },
  };
  const crafted = {
    schema: 1,
    runId: img,
    provider: svg,
    harnesses: [{ name: script, status: attr }],
    startedAt: frame,
    finishedAt: img,
    success: svg,
    totals: { tests: img, passed: svg, failed: script, skipped: attr, sessions: frame, calls: img },
    tests: [
      {
        id: "t1",
        file: img,
        title: svg,
        fullName: script,
        verdict: img,
        durationMs: svg,
        failureMessages: [attr],
        sessions: [session],
        trials: { passed: img, total: svg, interval: [script, attr], need: frame },
        stats: [stats],
      },
    ],
  };
  return crafted as unknown as RunReport;
}

test("markup in the report's number and word fields is written as text too: nothing runs", async () => {
  const file = join(folder!, "crafted.html");
  writeFileSync(file, renderReportHtml(craftedReport()));
  const html = readFileSync(file, "utf8");
  for (const payload of PAYLOADS) expect(html).not.toContain(payload);
  await withChromium(async (browser) => {
    const page = await browser.newPage();
    const watch = await open(page, `${pathToFileURL(file).href}#test=t1`);
    const detail = page.locator("#detail");
    const shown = (await detail.textContent()) ?? "";
    // The markup is on screen as text, where each field is shown.
    expect(shown).toContain(`Turn ${PAYLOADS[0]}`);
    expect(shown).toContain(`${PAYLOADS[0]} call(s) outside any turn`);
    expect(shown).toContain(`trials ${PAYLOADS[0]}/${PAYLOADS[1]} passed`);
    expect(await page.locator("#totals").textContent()).toContain(`${PAYLOADS[0]} tests`);
    // The next page of calls (rendered by the page's click handler), then a call's messages.
    await detail.locator("button.more").click();
    await expect(detail.locator("tr.call").count()).resolves.toBe(101);
    await detail.locator("tr.call").nth(0).click();
    await expect(detail.locator("tr.messages").count()).resolves.toBe(1);
    await expectNothingRan(page, watch);
  });
}, 120_000);

/** Fields whose value is one word of a fixed list (refused otherwise: see merge-reports-validation). */
const WORDS = new Set(["kind", "status", "evidence", "direction", "outcome", "rootDir"]);

/** `value` with every text in it, except the words above, replaced by {@link ALL}. */
function markedUp(value: unknown, key = ""): unknown {
  if (typeof value === "string") return WORDS.has(key) ? value : ALL;
  if (Array.isArray(value)) return value.map((entry) => markedUp(entry, key));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([name, entry]) => [name, markedUp(entry, name)]),
    );
  }
  return value;
}

test("a shard whose every text field is markup merges, and its report runs nothing", async () => {
  const blob = markedUp(validBlob(1, 1)) as Record<string, unknown>;
  blob.run = { runId: "r", provider: ALL, readiness: { [ALL]: { error: ALL } } };
  const shard = join(folder!, "shard");
  mkdirSync(shard, { recursive: true });
  writeFileSync(join(shard, "blob.json"), JSON.stringify(blob));
  const merged = spawnSync(
    process.execPath,
    [CLI, "merge-reports", shard, "--results", join(folder!, "results"), "--no-history"],
    { cwd: folder!, encoding: "utf8", timeout: 60_000 },
  );
  expect({ code: merged.status, err: merged.stderr }).toEqual({ code: 0, err: "" });
  const file = merged.stdout.split("\n")[1]!;
  expect(file).toMatch(/report\.html$/);
  const html = readFileSync(file, "utf8");
  for (const payload of PAYLOADS) expect(html).not.toContain(payload);
  await withChromium(async (browser) => {
    const page = await browser.newPage();
    const watch = await open(page, pathToFileURL(file).href);
    const detail = page.locator("#detail");
    const shown = (await detail.textContent()) ?? "";
    expect(shown).toContain(`prompt${ALL}reply${ALL}`);
    expect(await page.locator("header .meta").textContent()).toContain(`provider: ${ALL}`);
    await detail.locator("tr.call").nth(0).click();
    expect(await detail.locator("tr.messages").textContent()).toContain(ALL);
    await expectNothingRan(page, watch);
  });
}, 120_000);

test("the page's policy runs its own script and styles only: an inline handler put in the page is blocked", async () => {
  const html = readFileSync(report, "utf8");
  const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
  expect(policy).toBeDefined();
  expect(policy).not.toContain("unsafe-inline");
  expect(policy).not.toContain("unsafe-eval");
  expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'/);
  expect(policy).toMatch(/style-src 'sha256-[A-Za-z0-9+/]+=*'/);
  await withChromium(async (browser) => {
    const page = await browser.newPage();
    const watch = await open(page, pathToFileURL(report).href);
    // The page's own script ran (it rendered the list) and its styles apply (by hash).
    await expect(page.locator("#list .row").count()).resolves.toBe(1);
    const rowPosition = await page.evaluate(() => {
      const browser = globalThis as unknown as BrowserGlobals;
      return browser.getComputedStyle(browser.document.querySelector("#list .row")!).position;
    });
    expect(rowPosition).toBe("absolute");
    // As an escaping bug would: markup with inline handlers and an inline script, in the page.
    await page.evaluate((markup) => {
      const { document } = globalThis as unknown as BrowserGlobals;
      document.getElementById("detail")!.insertAdjacentHTML("beforeend", markup);
      const script = document.createElement("script");
      script.textContent = "window.__m3pwned = 'inline script';";
      document.body.appendChild(script);
    }, `<img src="data:," onerror="window.__m3pwned='handler'"><div id="m3-probe" onclick="window.__m3pwned='click'">probe</div>`);
    await page.locator("#m3-probe").click();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await pwned(page)).toBeNull();
    expect(watch.console.join("\n")).toMatch(/Content Security Policy/);
    expect(watch.dialogs).toEqual([]);
  });
}, 120_000);
