/**
 * The run report as one self-contained HTML file: styles and script inline, the run's data
 * in a `<script type="application/json">` tag. It opens from disk, with no server and no
 * network.
 *
 * Every value of the run reaches the markup escaped, here through {@link escapeHtml} and in
 * the page through its one `esc` (numbers too: a blob's number may hold markup). Behind
 * that, the page's content security policy runs only its own script and styles, named by
 * their sha256 hashes: no inline event handler, no injected script or style, no load.
 */
import { createHash } from "node:crypto";
import type { RunReport } from "./model.js";
import { REPORT_SCRIPT, REPORT_STYLES } from "./client.js";

/**
 * JSON safe inside a `<script>` element: every `<` escaped, so no `</script>` or `<!--` in
 * the data can end or change the element; U+2028/U+2029 escaped for older parsers.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** `value` as text safe in HTML content and in quoted attributes. */
export const escapeHtml = (value: unknown): string =>
  String(value ?? "").replace(
    /[&<>"']/g,
    (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!,
  );

const sha256 = (text: string): string =>
  `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/**
 * The page's content security policy: nothing loaded from anywhere, only the page's own
 * script and style element (by hash) run, no inline handler or style attribute, no base or
 * form target. Images only as data: URLs (none are used).
 */
export const REPORT_POLICY = [
  "default-src 'none'",
  `script-src ${sha256(REPORT_SCRIPT)}`,
  `style-src ${sha256(REPORT_STYLES)}`,
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

/**
 * The report page of a run.
 *
 * @example
 * ```ts
 * writeFileSync(join(runDir, "report.html"), renderReportHtml(report));
 * ```
 */
export function renderReportHtml(report: RunReport): string {
  const { totals } = report;
  const title = `jest-m3 run ${report.runId ?? ""}`.trim();
  const harnesses = report.harnesses.map((entry) => `${entry.name} ${entry.status}`).join(" · ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${REPORT_POLICY}">
<title>${escapeHtml(title)}</title>
<style>${REPORT_STYLES}</style>
</head>
<body>
<header>
<h1>${escapeHtml(title)}</h1>
<span class="totals" id="totals"><span class="${report.success === true ? "st-success" : "st-bad"}">${report.success === true ? "passed" : "failed"}</span><span>${escapeHtml(totals.tests)} tests</span><span class="st-success">${escapeHtml(totals.passed)} passed</span><span class="st-bad">${escapeHtml(totals.failed)} failed</span><span>${escapeHtml(totals.skipped)} skipped</span><span>${escapeHtml(totals.sessions)} sessions</span><span>${escapeHtml(totals.calls)} tool calls</span></span>
${report.shards && report.shards.missing.length > 0 ? `<div class="partial-run" id="partial-run">${escapeHtml(`Partial run: shard(s) ${report.shards.missing.join(", ")} of ${report.shards.count} missing (merged with --allow-partial); the counts are of the merged shards only.`)}</div>\n` : ""}<div class="meta">${escapeHtml(`provider: ${report.provider ?? "unknown"}`)}${harnesses ? ` · ${escapeHtml(harnesses)}` : ""} · ${escapeHtml(report.finishedAt)}</div>
</header>
<div class="filters">
<nav class="views" aria-label="view"><a href="#tests" id="tab-list">tests</a><a href="#grid" id="tab-grid">grid</a></nav>
<select id="f-verdict" aria-label="verdict"><option value="">all verdicts</option><option value="failed">failed</option><option value="passed">passed</option><option value="skipped">skipped</option><option value="todo">todo</option></select>
<select id="f-agent" aria-label="agent"></select>
<select id="f-server" aria-label="server"></select>
<select id="f-tool" aria-label="tool"></select>
<input id="f-search" type="search" placeholder="search tests, prompts, replies, calls" aria-label="search">
<span id="count"></span>
</div>
<main>
<div id="list"><div id="list-inner"></div></div>
<section id="detail"><div class="empty">Choose a test.</div></section>
</main>
<section id="grid" hidden></section>
<script type="application/json" id="m3-data">${jsonForScript(report)}</script>
<script>${REPORT_SCRIPT}</script>
</body>
</html>
`;
}
