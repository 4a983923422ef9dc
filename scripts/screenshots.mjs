#!/usr/bin/env node
// The docs' screenshots, taken of real runs so they cannot drift from the product: a small
// project (scripts/screenshots/: Codex on the scripted model, trials, a failing test, a
// direct test) is run by Jest twice, and its report and history page are opened in headless
// Chromium (Debian's /usr/bin/chromium through playwright-core, which never downloads a
// browser) and written as the PNGs the docs show. Run by `npm run screenshots`.
//
//   node scripts/screenshots.mjs                        run the project twice, write docs/images
//   node scripts/screenshots.mjs --list                 the images it writes, as JSON
//   node scripts/screenshots.mjs --project <dir>        only write the project into <dir>
//   node scripts/screenshots.mjs --render <dir> [--out <folder>]
//                                                       only take the shots of a project already run
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const PROJECT = join(root, "scripts", "screenshots");
const CHROMIUM = "/usr/bin/chromium";
const VIEWPORT = { width: 1280, height: 760 };

/** The test names of the project, as the shots find them in the report. */
const TESTS = {
  trials: "quotes a local parcel in each of 3 trials",
  failing: "quotes a regional parcel",
  direct: "a direct call quotes 9 USD",
};

/**
 * Every image the docs show, where it goes (relative to the repository) and what it shows.
 * `page` is `report` or `history`; `hash` the report's deep link; `element` what is cut out.
 */
export const SHOTS = [
  {
    file: "docs/images/report-failed-test.png",
    shows: "the report, opened on a failed agent test",
    page: "report",
    test: TESTS.failing,
  },
  {
    file: "docs/images/report-trials.png",
    shows: "a test in trials: the per-agent table (tokens, cost) and each session's trial",
    page: "report",
    test: TESTS.trials,
    element: "#detail",
  },
  {
    file: "docs/images/report-direct.png",
    shows: "a direct test's calls and messages",
    page: "report",
    test: TESTS.direct,
    element: "#detail",
    openFirstCall: true,
  },
  {
    file: "docs/images/report-grid.png",
    shows: "the test × agent grid, tools and catalog cost",
    page: "report",
    hash: "grid",
  },
  {
    file: "docs/images/history.png",
    shows: "the history page (jest-m3 show-history)",
    page: "history",
  },
];

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Writes the project into `dir`: its files, the example's shipping server, node_modules. */
export function writeProject(dir) {
  mkdirSync(dir, { recursive: true });
  for (const name of ["m3.config.json", "model-script.json", "shipping.test.ts"]) {
    copyFileSync(join(PROJECT, name), join(dir, name));
  }
  copyFileSync(
    join(root, "examples", "shipping", "shipping-server.mjs"),
    join(dir, "shipping-server.mjs"),
  );
  writeFileSync(join(dir, "jest.config.js"), 'module.exports = { preset: "jest-m3" };\n');
  writeFileSync(join(dir, "package.json"), '{ "name": "jest-m3-screenshots", "private": true }\n');
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        lib: ["ES2022", "ESNext.Disposable"],
        module: "Node16",
        moduleResolution: "Node16",
        strict: true,
        skipLibCheck: true,
        types: ["node", "jest"],
      },
    }),
  );
  if (!existsSync(join(dir, "node_modules"))) {
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  }
}

/** Runs the project's tests once (one test fails on purpose: Jest exits 1). */
function runProject(dir) {
  const env = { ...process.env, FORCE_COLOR: "0" };
  for (const name of Object.keys(env)) if (name.startsWith("M3_")) delete env[name];
  delete env.JEST_WORKER_ID;
  const run = spawnSync(
    process.execPath,
    [join(root, "node_modules", "jest", "bin", "jest.js"), "--ci", "--colors=false"],
    { cwd: dir, env, encoding: "utf8", timeout: 600_000, killSignal: "SIGKILL" },
  );
  if (run.status !== 1 || !/report written to/.test(run.stderr)) {
    throw new Error(
      `the screenshot project's run did not end as planned (exit ${run.status}, two failing tests expected):\n${run.stdout}\n${run.stderr}`,
    );
  }
}

/** The newest run folder of a project that has a report. */
function latestRun(dir) {
  const runs = join(dir, ".m3", "runs");
  const found = existsSync(runs)
    ? readdirSync(runs)
        .map((name) => join(runs, name))
        .filter((path) => existsSync(join(path, "report.html")))
        .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)
    : [];
  if (found.length === 0) throw new Error(`no run with a report.html under ${runs}`);
  return found[found.length - 1];
}

/** The report's id of the test named `name` (the deep link `#test=<id>`). */
function testIdOf(run, name) {
  const report = JSON.parse(readFileSync(join(run, "report.json"), "utf8"));
  const row = report.stats.find((entry) => entry.test.fullName === name);
  if (row) return row.test.id;
  const { testId } = require(join(root, "packages", "jest-m3", "dist", "report", "build.js"));
  return testId("shipping.test.ts", name);
}

/**
 * Takes every shot of {@link SHOTS} of the project in `dir` (already run) into `out` (the
 * repository by default), and returns the files written with their sizes.
 */
export async function renderShots(dir, out = root) {
  const run = latestRun(dir);
  const history = join(mkdtempSync(join(tmpdir(), "m3-shots-")), "history.html");
  const cli = spawnSync(
    process.execPath,
    [
      join(root, "packages", "jest-m3", "bin", "jest-m3.js"),
      "show-history",
      "--results",
      join(dir, ".m3"),
      "--out",
      history,
      "--no-open",
    ],
    { cwd: dir, encoding: "utf8", timeout: 120_000 },
  );
  if (cli.status !== 0) throw new Error(`jest-m3 show-history failed:\n${cli.stdout}${cli.stderr}`);
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}; install Debian's package (as root): apt-get install -y chromium`,
    );
  }
  const { chromium } = require("playwright-core");
  const profile = mkdtempSync(join(tmpdir(), "m3-shots-profile-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: VIEWPORT,
    timeout: 60_000,
  });
  const written = [];
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    // Nothing leaves the page: a request to anything but the file itself fails the shots.
    const outside = [];
    page.on("request", (request) => {
      if (!request.url().startsWith("file:")) outside.push(request.url());
    });
    for (const shot of SHOTS) {
      const base = pathToFileURL(shot.page === "history" ? history : join(run, "report.html"));
      const hash = shot.test ? `test=${testIdOf(run, shot.test)}` : (shot.hash ?? "");
      await page.goto("about:blank");
      await page.goto(`${base.href}${hash ? `#${hash}` : ""}`);
      if (shot.page === "report") {
        await page.waitForFunction(() => globalThis.m3Report && globalThis.m3Report.ready);
      }
      if (shot.openFirstCall) await page.click("#detail table.calls tr.call");
      const file = join(out, shot.file);
      mkdirSync(dirname(file), { recursive: true });
      if (shot.element) await page.locator(shot.element).screenshot({ path: file });
      else await page.screenshot({ path: file });
      written.push({ file: relative(out, file), bytes: statSync(file).size });
    }
    if (outside.length > 0) throw new Error(`the pages made requests: ${outside.join(", ")}`);
  } finally {
    await browser.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
    rmSync(dirname(history), { recursive: true, force: true });
  }
  return written;
}

async function main(args) {
  if (args[0] === "--list") {
    process.stdout.write(`${JSON.stringify(SHOTS.map((shot) => shot.file))}\n`);
    return;
  }
  if (args[0] === "--project") {
    if (!args[1]) throw new Error("--project needs a folder");
    writeProject(args[1]);
    return;
  }
  if (args[0] === "--render") {
    if (!args[1]) throw new Error("--render needs the folder of a project already run");
    const at = args.indexOf("--out");
    const written = await renderShots(args[1], at > 0 ? args[at + 1] : root);
    process.stdout.write(`${JSON.stringify(written)}\n`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "m3-shots-project-"));
  try {
    writeProject(dir);
    // Two runs, so the history page has a trend to draw.
    for (let run = 1; run <= 2; run += 1) {
      process.stderr.write(`screenshots: run ${run} of 2 of the project…\n`);
      runProject(dir);
    }
    for (const shot of await renderShots(dir)) {
      process.stderr.write(`screenshots: wrote ${shot.file} (${shot.bytes} bytes)\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((error) => {
    process.stderr.write(`screenshots: ${error instanceof Error ? error.message : error}\n`);
    process.exit(1);
  });
}
