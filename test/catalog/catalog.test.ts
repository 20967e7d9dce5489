/**
 * The catalog page (`GET /`): over plain HTTP (headers, escaping, no inline code), then
 * in headless Chromium under its real CSP: tools listed, the try-it form calls a tool
 * and shows the envelope, no console error or CSP violation; a screenshot is written
 * to test-output/catalog.png.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';

const CHROMIUM = '/usr/bin/chromium';
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
const OUTPUT_DIR = fileURLToPath(new URL('../../test-output/', import.meta.url));
const CSP = "default-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";
const API_KEY = 'catalog-key-7c1e90aa';

function catalogSpec(upstream: string, opts: { access?: boolean } = {}): string {
  return `
wrap "catalog-demo" version="2.3.4" {
    title "Catalog <demo> & friends"
    describe "Read items and manage things.\\nNever trust <b>markup</b> in here."
}
base-url "${upstream}"
timeout "5s"
${opts.access ? `access {\n    api-key env="CATALOG_KEYS" scopes="items:read things:write"\n}` : ''}
can get item {
    describe "One item by id. <script>alert(1)</script>"
    path "/items/{id}"
    ${opts.access ? 'scope "items:read"' : ''}
}
can create thing {
    describe "Create a thing with a name."
    path "/things"
    body {
        name "string" required=#true min-length=1 describe="Its name."
        amount "integer" min=0 default=1
        tags "string[]" max-items=5
    }
    ${opts.access ? 'scope "things:write"' : ''}
}
can delete thing {
    describe "Delete a thing for good."
    path "/things/{id}"
    ${opts.access ? 'scope "things:write"' : ''}
}
`;
}

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe('catalog page over HTTP', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  let gwAccess: TestGateway;

  beforeAll(async () => {
    upstream = await startUpstream();
    gw = await startGateway(catalogSpec(upstream.url));
    gwAccess = await startGateway(catalogSpec(upstream.url, { access: true }), {
      env: { CATALOG_KEYS: API_KEY },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await gwAccess?.close();
    await upstream?.close();
  });

  it('serves GET / as HTML under a strict CSP, listing every tool', async () => {
    const r = await get(`${gw.url}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toBe(CSP);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(r.headers.get('cache-control')).toBe('no-cache');
    for (const name of ['get_item', 'create_thing', 'delete_thing']) {
      expect(r.text).toContain(`id="tool-${name}"`);
      expect(r.text).toContain(`action="/api/${name}"`);
    }
    expect(r.text).toContain('<code>catalog-demo</code>');
    expect(r.text).toContain('version 2.3.4');
    // Annotation badges follow the verbs.
    expect(r.text).toContain('badge-read-only');
    expect(r.text).toContain('badge-destructive');
    // The example starts from the required fields and defaults only.
    expect(r.text).toContain(
      JSON.stringify({ name: '', amount: 1 }, null, 2).replace(/"/g, '&quot;'),
    );
    // No access block: no token field.
    expect(r.text).not.toContain('id="bearer-token"');
  });

  it('escapes every spec string and has no inline script or style', async () => {
    const { text } = await get(`${gw.url}/`);
    expect(text).not.toContain('<script>alert(1)</script>');
    expect(text).toContain('One item by id. &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(text).toContain('Catalog &lt;demo&gt; &amp; friends');
    expect(text).not.toContain('<b>markup</b>');
    // Every <script> loads a same-origin file; nothing carries a style attribute or element.
    const scripts = text.match(/<script\b[^>]*>/gi) ?? [];
    expect(scripts).toHaveLength(1);
    for (const tag of scripts) expect(tag).toMatch(/\bsrc="\/catalog\.js\?v=[\w-]+"/);
    expect(text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    expect(text).not.toMatch(/\sstyle\s*=/i);
    expect(text).not.toMatch(/<style\b/i);
    expect(text).not.toMatch(/\son[a-z]+\s*=/i);
    expect(text).not.toMatch(/javascript:/i);
  });

  it('serves /catalog.js, /catalog.css and /catalog.svg with their types, caching and ETags', async () => {
    const page = await get(`${gw.url}/`);
    const scriptUrl = /src="(\/catalog\.js\?v=[\w-]+)"/.exec(page.text)![1]!;
    const styleUrl = /href="(\/catalog\.css\?v=[\w-]+)"/.exec(page.text)![1]!;
    const js = await get(`${gw.url}${scriptUrl}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    expect(js.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(js.text).toContain("fetch('/api/'");
    const css = await get(`${gw.url}${styleUrl}`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.text).toContain('.badge');
    const iconUrl = /rel="icon" type="image\/svg\+xml" href="(\/catalog\.svg\?v=[\w-]+)"/.exec(
      page.text,
    )![1]!;
    const icon = await get(`${gw.url}${iconUrl}`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    // The version query is the ETag, and a matching If-None-Match is answered 304.
    const etag = js.headers.get('etag')!;
    expect(scriptUrl.endsWith(`?v=${etag.slice(1, -1)}`)).toBe(true);
    const again = await get(`${gw.url}/catalog.js`, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    // The catalog reads nothing upstream.
    expect(upstream.requests).toHaveLength(0);
  });

  it('shows a bearer-token field when the spec has access, and the page itself needs none', async () => {
    const r = await get(`${gwAccess.url}/`);
    expect(r.status).toBe(200);
    expect(r.text).toContain('<input id="bearer-token" type="password"');
    expect(r.text).toContain('Needs scope <code>items:read</code>');
  });
});

describe('catalog page in headless Chromium', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  let gwAccess: TestGateway;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `${CHROMIUM} is missing: the catalog browser test needs Debian's Chromium ` +
          '(apt-get install -y --no-install-recommends chromium fonts-liberation)',
      );
    }
    upstream = await startUpstream();
    gw = await startGateway(catalogSpec(upstream.url));
    gwAccess = await startGateway(catalogSpec(upstream.url, { access: true }), {
      env: { CATALOG_KEYS: API_KEY },
    });
    profile = mkdtempSync(join(tmpdir(), 'mcp-beaver-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: 15_000,
      viewport: { width: 1000, height: 800 },
    });
    context.setDefaultTimeout(8_000);
  }, 30_000);

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await gw?.close();
    await gwAccess?.close();
    await upstream?.close();
  });

  /** A new page that records console errors, uncaught errors and CSP violations. */
  async function openPage(url: string): Promise<{ page: Page; problems: string[] }> {
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
    expect(res?.status()).toBe(200);
    return { page, problems };
  }

  it('lists the tools, calls one from its try-it form and shows the envelope', async () => {
    upstream.requests.length = 0;
    const { page, problems } = await openPage(`${gw.url}/`);
    expect(await page.title()).toBe('Catalog <demo> & friends · tool catalog');
    await expect.poll(() => page.locator('article.tool').count()).toBe(3);
    const names = await page.locator('article.tool .tool-name').allTextContents();
    expect(names).toEqual(['get_item', 'create_thing', 'delete_thing']);
    // The escaped description shows as text, and the script it spells never ran.
    await expect
      .poll(() => page.locator('#tool-get_item .prose').textContent())
      .toBe('One item by id. <script>alert(1)</script>');
    // The MCP URL is filled in from the page's origin.
    expect(await page.inputValue('#mcp-url')).toBe(`${gw.url}/mcp`);
    expect(await page.locator('#bearer-token').count()).toBe(0);

    const card = page.locator('#tool-get_item');
    await card.locator('textarea').fill('{ "id": "item 42" }');
    await card.getByRole('button', { name: 'Call' }).click();
    const envelope = card.locator('pre.envelope');
    await envelope.waitFor({ state: 'visible' });
    const shown = (await envelope.textContent()) ?? '';
    expect(shown.startsWith('{\n  "coverage": {\n    "truncated": false,')).toBe(true);
    expect(JSON.parse(shown)).toEqual({
      coverage: { truncated: false, bytes: expect.any(Number), over_budget: false, items: [] },
      result: { ok: true, method: 'GET', path: '/items/item%2042' },
    });
    expect(await card.locator('.call-status').textContent()).toMatch(/^HTTP 200\b/);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.path).toBe('/items/item%2042');

    // Bad JSON is caught in the page and never sent.
    const create = page.locator('#tool-create_thing');
    await create.locator('textarea').fill('{ name: ');
    await create.getByRole('button', { name: 'Call' }).click();
    await expect
      .poll(() => create.locator('.call-status').textContent())
      .toMatch(/^The arguments are not valid JSON/);
    expect(upstream.requests).toHaveLength(1);
    await create.locator('textarea').fill('{ "name": "spanner", "amount": 3 }');

    // The schema of one tool open, for the screenshot.
    await page.locator('#tool-create_thing summary').click();
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: join(OUTPUT_DIR, 'catalog.png'), fullPage: true });

    expect(problems).toEqual([]);

    // Control: the CSP is really enforced, and a violation would have been seen.
    await page.evaluate(
      "(() => { const s = document.createElement('script'); s.textContent = 'window.__inline = 1';" +
        ' document.body.appendChild(s); })()',
    );
    expect(await page.evaluate('typeof window.__inline')).toBe('undefined');
    await expect
      .poll(() => problems.some((p) => p.includes('CSP violation: script-src')))
      .toBe(true);
    await page.close();
  }, 30_000);

  it('with access, sends the token from sessionStorage as a bearer header and never in the URL', async () => {
    upstream.requests.length = 0;
    const { page, problems } = await openPage(`${gwAccess.url}/`);
    const card = page.locator('#tool-get_item');
    await card.locator('textarea').fill('{ "id": "7" }');

    // Without a token: the gateway's 401 is shown and nothing reaches the upstream.
    await card.getByRole('button', { name: 'Call' }).click();
    await expect.poll(() => card.locator('.call-status').textContent()).toMatch(/^HTTP 401\b/);
    expect(await card.locator('pre.envelope').textContent()).toContain('"code"');
    expect(upstream.requests).toHaveLength(0);

    await page.fill('#bearer-token', API_KEY);
    // Kept across a reload of the tab, in sessionStorage only.
    await page.reload({ waitUntil: 'load' });
    expect(await page.inputValue('#bearer-token')).toBe(API_KEY);
    expect(await page.evaluate("sessionStorage.getItem('mcp-beaver:bearer-token')")).toBe(API_KEY);
    await card.locator('textarea').fill('{ "id": "7" }');
    await card.getByRole('button', { name: 'Call' }).click();
    await expect.poll(() => card.locator('.call-status').textContent()).toMatch(/^HTTP 200\b/);
    expect(upstream.requests).toHaveLength(1);
    expect(page.url()).toBe(`${gwAccess.url}/`);
    expect(page.url()).not.toContain(API_KEY);

    // The only problems are the deliberate 401 and the browser's console note about it.
    expect(problems).toEqual([
      `HTTP 401 ${gwAccess.url}/api/get_item`,
      expect.stringMatching(/^console: Failed to load resource: .*status of 401/),
    ]);
    await page.close();
  }, 30_000);
});
