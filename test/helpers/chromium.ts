/**
 * Headless Chromium for the catalog page's browser tests, one launch for every file that
 * drives the page: where the browser is, why its tests are skipped without one, and how it
 * is started.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium, or another build named by MCP_BEAVER_CHROMIUM. */
export const CHROMIUM = process.env.MCP_BEAVER_CHROMIUM || '/usr/bin/chromium';
export const INSTALL_HINT =
  'apt-get install -y --no-install-recommends chromium fonts-liberation, or point MCP_BEAVER_CHROMIUM at a Chromium binary';
/**
 * A fresh machine may lack a browser: then the browser tests are skipped, and say why.
 * CI sets MCP_BEAVER_REQUIRE_BROWSER=1, which turns a missing browser into a failure so
 * that CI never skips them.
 */
export const BROWSER_FOUND = existsSync(CHROMIUM);
const BROWSER_REQUIRED = process.env.MCP_BEAVER_REQUIRE_BROWSER === '1';

/**
 * Whether `file`'s browser tests are skipped, and why: the arguments of `skipBecause`,
 * called in the test file itself (the skip-reasons check reads it there).
 */
export function browserSkip(file: string): [boolean, string] {
  return [
    !BROWSER_FOUND && !BROWSER_REQUIRED,
    `${file}: the headless Chromium tests: no browser at ${CHROMIUM} (${INSTALL_HINT}; set MCP_BEAVER_REQUIRE_BROWSER=1 to make this a failure)`,
  ];
}

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/**
 * Headless Chromium in a fresh profile folder, which the caller removes after closing the
 * context; a launch that fails removes the folder itself (the caller never learns its name).
 * Without a browser (reached only when MCP_BEAVER_REQUIRE_BROWSER=1 kept the tests from
 * being skipped) it fails saying what to install.
 */
export async function launchChromium(): Promise<{ context: BrowserContext; profile: string }> {
  if (!BROWSER_FOUND) {
    throw new Error(
      `${CHROMIUM} is missing and MCP_BEAVER_REQUIRE_BROWSER=1: the browser tests need Chromium (${INSTALL_HINT})`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), 'mcp-beaver-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      // A bound, not a measure: a cold Chromium on a loaded 2-core machine has been
      // seen to take over 15 s to start (CI, with the rest of the suite running).
      timeout: 60_000,
      viewport: { width: 1000, height: 800 },
    });
    // Each page action's bound: a click or a wait that hangs fails within a test's own bound,
    // with room for a busy machine.
    context.setDefaultTimeout(20_000);
    return { context, profile };
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
}

/** Closes what `launchChromium` started and removes its profile; either may be missing. */
export async function closeChromium(context?: BrowserContext, profile?: string): Promise<void> {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
}

/**
 * A new page at `url` that records console errors, uncaught errors, failed requests,
 * HTTP errors and CSP violations in `problems`, for the test to say which it expects.
 */
export async function openPage(
  context: BrowserContext,
  url: string,
): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${r.url()}`);
  });
  // Injected by the browser tooling, so the page's own CSP does not stop it.
  await page.addInitScript(
    "document.addEventListener('securitypolicyviolation', function (e) {" +
      " console.error('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI); });",
  );
  const res = await page.goto(url, { waitUntil: 'load' });
  if (res?.status() !== 200) throw new Error(`${url} answered ${res?.status()}, not 200`);
  return { page, problems };
}
