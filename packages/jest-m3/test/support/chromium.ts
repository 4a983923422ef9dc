/**
 * Headless Chromium for the report tests: Debian's `chromium` package, driven by
 * playwright-core (which never downloads a browser). A missing browser fails the test with
 * the command that installs it; it never skips.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

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
