/**
 * Headless Chromium for the report tests: Debian's `chromium` package, driven by
 * playwright-core (which never downloads a browser). A missing browser fails the test with
 * the command that installs it; it never skips.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

/** Where Debian's package puts the browser. */
export const CHROMIUM = "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Runs `use` with a fresh headless Chromium (its own user-data folder), and closes the
 * browser and removes the folder afterwards, whatever happens.
 */
export async function withChromium<T>(use: (browser: BrowserContext) => Promise<T>): Promise<T> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}; the report tests need a real browser. ` +
        "Install Debian's package (as root): apt-get install -y chromium",
    );
  }
  const profile = mkdtempSync(join(tmpdir(), "m3-chromium-profile-"));
  // playwright-core takes the profile folder as launchPersistentContext's argument (it
  // refuses --user-data-dir among the args) and passes it to Chromium as --user-data-dir.
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    timeout: 60_000,
  });
  try {
    return await use(browser);
  } finally {
    await browser.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * Waits (up to 10 s) until `selector`'s text on `page` is `text`, polling from the test's
 * side (the report's CSP forbids eval'd predicates; the page filters on input); throws with
 * what it showed last.
 */
export async function expectText(page: Page, selector: string, text: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  let seen: string | null = null;
  while (Date.now() < deadline) {
    seen = await page.locator(selector).textContent();
    if (seen === text) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${selector} shows ${JSON.stringify(seen)}, not ${JSON.stringify(text)}`);
}
