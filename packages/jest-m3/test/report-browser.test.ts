// The HTML report of a real run (a user's project run by Jest as a child process, agent
// sessions through the test harness making real MCP calls), opened from disk in headless
// Chromium: content, a filter, a deep link, a screenshot; then `jest-m3 show-report`.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { testId } from "../dist/report/build";
import { expectText, withChromium } from "./support/chromium";
import {
  makeUserProject,
  removeTempDir,
  runFolder,
  runJest,
  CLI,
  oneTurnTestSource,
  TEST_FILE_IMPORTS,
} from "./support/user-project";

const PLANTED_KEY = "planted-key-value-5c1e9a";
const PLANTED_TOKEN = "planted-token-value-77d2";

const agentTest = (name: string, prompt: string, assertion: string): string =>
  oneTurnTestSource(JSON.stringify(name), JSON.stringify(prompt), assertion);

const PROJECT = {
  "report.test.ts": `
${TEST_FILE_IMPORTS}${agentTest(
    "quotes a local parcel",
    'call shipping:shipping_quote {"weight_kg":2,"zone":"local"}\nreply The quote is 9 USD.',
    'expect(session.result).toHaveToolCall("shipping_quote", { turn, arguments: { weight_kg: 2, zone: "local" } });',
  )}
${agentTest(
  "asks for the wrong zone",
  `call shipping:shipping_quote {"weight_kg":2,"zone":"local","api_token":"${PLANTED_TOKEN}"}\ncall shipping:shipping_quote {"weight_kg":5,"zone":"international"}\nreply Quoted with ${PLANTED_KEY}.`,
  'expect(session.result).toHaveToolCall("shipping_quote", { turn, arguments: { weight_kg: 2, zone: "regional" } });',
)}
test("does not talk to an agent", () => {
  expect(1 + 1).toBe(2);
});
`,
};

let project: string | undefined;
let report: string;
let output: string;
let shots: string | undefined;

beforeAll(() => {
  project = makeUserProject(PROJECT);
  const run = runJest(project, { env: { SHIPPING_API_KEY: PLANTED_KEY }, timeoutMs: 150_000 });
  output = run.output;
  expect(run.status).toBe(1); // one test fails on purpose
  report = join(runFolder(project), "report.html");
}, 180_000);

afterAll(() => {
  if (!process.env.M3_KEEP) removeTempDir(project);
  removeTempDir(shots);
});

test("the run writes one self-contained report.html, with no secret in it", () => {
  expect(output).toContain("report written to");
  expect(existsSync(report)).toBe(true);
  const html = readFileSync(report, "utf8");
  expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i); // nothing loaded from elsewhere
  expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/); // no address to fetch
  expect(html).not.toContain(PLANTED_KEY);
  expect(html).not.toContain(PLANTED_TOKEN);
  expect(html).toContain("[redacted: SHIPPING_API_KEY]");
  // The embedded data cannot end its script element.
  const data = /<script type="application\/json" id="m3-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
  expect(data).not.toContain("<");
});

test("Chromium shows the run: tests, the failed assertion, the call timeline, its JSON-RPC messages; filters and deep links work", async () => {
  const url = pathToFileURL(report).href;
  const passingId = testId("report.test.ts", "quotes a local parcel");
  shots = mkdtempSync(join(tmpdir(), "m3-report-shots-"));
  const screenshot = join(shots, "report.png");
  await withChromium(async (browser) => {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith("file:")) requests.push(request.url());
    });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(url);
    await expectText(page, "#count", "3 of 3 tests");

    await expect(page.locator("#count").textContent()).resolves.toBe("3 of 3 tests");
    await expect(page.locator("#totals").textContent()).resolves.toContain("1 failed");
    // The failed test is shown first: its assertion, its agent, its turn and calls.
    const detail = page.locator("#detail");
    await expect(detail.locator("h2").textContent()).resolves.toContain("asks for the wrong zone");
    const text = (await detail.textContent()) ?? "";
    expect(text).toContain("Failed assertion");
    expect(text).toContain('arguments {"weight_kg":2,"zone":"regional"}');
    expect(text).toContain("harness test 1.0.0 · model scripted-1");
    // Per agent: trials, pass rate and interval, turn latency, tool calls; the test harness
    // has no provider tap and the project no price table: tokens not counted, cost unavailable.
    const stats = (await detail.locator("table.stats tr.stats-row").allTextContents()).join("|");
    expect(stats).toMatch(
      /^test 1\.0\.0 · scripted-10\/10% \(0%–79%\)[\d.]+ m?s[\d.]+ m?s22 \/ 2not countedunavailable: no price table \(m3\.config\.json prices\)$/,
    );
    expect(text).toContain('call shipping:shipping_quote {"weight_kg":5,"zone":"international"}');
    const rows = detail.locator("tr.call");
    await expect(rows.count()).resolves.toBe(2);
    const first = (await rows.nth(0).textContent()) ?? "";
    expect(first).toContain("shipping_quote");
    expect(first).toContain('"api_token":"[redacted]"');
    expect(first).toContain("success");
    expect(first).toContain("both");
    expect(first).toMatch(/\d+ ms/);
    await page.screenshot({ path: screenshot });
    await rows.nth(1).click();
    const messages = (await detail.locator("tr.messages").textContent()) ?? "";
    expect(messages).toContain("→ to server");
    expect(messages).toContain('"method": "tools/call"');
    expect(messages).toContain("← from server");
    expect(messages).toContain('"international"');

    // A filter: only the failed test remains.
    await page.selectOption("#f-verdict", "failed");
    await expect(page.locator("#count").textContent()).resolves.toBe("1 of 3 tests");
    await expect(page.locator("#list .row").count()).resolves.toBe(1);
    await page.selectOption("#f-verdict", "");
    await page.fill("#f-search", "does not talk");
    await expectText(page, "#count", "1 of 3 tests");

    // A deep link to the passing test, opened fresh.
    await page.goto(`${url}#test=${passingId}`);
    await expectText(page, "#count", "3 of 3 tests");
    await expect(detail.getAttribute("data-test-id")).resolves.toBe(passingId);
    await expect(detail.locator("h2").textContent()).resolves.toContain("quotes a local parcel");
    await expect(page.locator(".row.selected").getAttribute("data-test-id")).resolves.toBe(
      passingId,
    );
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
  });
  expect(statSync(screenshot).size).toBeGreaterThan(10_000);
  const keep = process.env.M3_REPORT_SCREENSHOT;
  if (keep) writeFileSync(keep, readFileSync(screenshot));
}, 120_000);

test("npx jest-m3 show-report prints the latest report and serves it", async () => {
  const printed = await runCli(["show-report", "--no-open"], project!);
  expect(printed.code).toBe(0);
  expect(printed.stdout.trim()).toBe(report);
  const missing = await runCli(["show-report", "no-such-run", "--no-open"], project!);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('No run matches "no-such-run"');

  const server = spawn(process.execPath, [CLI, "show-report", "--serve"], {
    cwd: project!,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const closed = new Promise((resolve) => server.once("close", resolve));
  try {
    let stdout = "";
    server.stdout.setEncoding("utf8");
    const address = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no address in ${stdout}`)), 20_000);
      server.stdout.on("data", (chunk: string) => {
        stdout += chunk;
        const match = /Serving the report at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    const response = await fetch(address);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(readFileSync(report, "utf8"));
    expect((await fetch(`${address}../etc/passwd`)).status).toBe(404);
  } finally {
    // Waited for: a child still unreaped when the file ends keeps Jest's worker alive.
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGTERM");
    await closed;
  }
}, 60_000);

function runCli(
  args: readonly string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...process.env, DISPLAY: "" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
