/**
 * The catalog page (`GET /`): over plain HTTP (headers, escaping, no inline code, and
 * no tool at all: the script lists them from GET /api), then in headless Chromium under
 * its real CSP: tools listed, the try-it form calls a tool and shows the envelope; with
 * access, a token lists exactly the tools its scopes allow; no console error or CSP violation.
 * Screenshots are written to test-output/catalog.png, catalog-access.png and
 * catalog-access-401.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import type { BrowserContext } from 'playwright-core';
import { skipBecause } from '../helpers/skip-reason.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../src/compiler/field-schema.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startHelpdeskGateway } from '../helpers/helpdesk-gateway.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { closeChromium, launchChromium, openPage, browserSkip } from '../helpers/chromium.js';

const SKIP_BROWSER = skipBecause(...browserSkip('catalog.test.ts'));
const OUTPUT_DIR = fileURLToPath(new URL('../../test-output/', import.meta.url));
const CSP = "default-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";
/** May call every tool. */
const API_KEY = 'catalog-key-7c1e90aa';
/** May call get_item only. */
const READ_KEY = 'catalog-reader-3b5d21f0';
const ACCESS_ENV = { CATALOG_KEYS: API_KEY, CATALOG_READ_KEYS: READ_KEY };
const ALL_TOOLS = ['get_item', 'create_thing', 'delete_thing'];
/** The try-it example of each tool: the required fields and those with a default. */
const EXAMPLES: Record<string, unknown> = {
  get_item: { id: '' },
  create_thing: { name: '', amount: 1, kind: 'gadget', due: '2025-01-01T00:00:00Z' },
  delete_thing: { id: '' },
};

function catalogSpec(upstream: string, opts: { access?: boolean } = {}): string {
  return `
wrap "catalog-demo" version="2.3.4" {
    title "Catalog <demo> & friends"
    describe "Read items and manage things.\\nNever trust <b>markup</b> in here."
}
base-url "${upstream}"
timeout "5s"
${
  opts.access
    ? `access {
    api-key env="CATALOG_KEYS" scopes="items:read things:write"
    api-key env="CATALOG_READ_KEYS" scopes="items:read"
}`
    : ''
}
can get item {
    describe "One item by id. <script>alert(1)</script>"
    path "/items/{id}"
    scope "items:read"
}
can create thing {
    describe "Create a thing with a name."
    path "/things"
    body {
        name "string" required=#true min-length=1 describe="Its name."
        amount "integer" min=0 default=1
        tags "string[]" max-items=5
        kind "string" required=#true { enum "gadget" "gizmo"; }
        due "string" format="date-time" required=#true
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
      env: ACCESS_ENV,
    });
  });
  afterAll(async () => {
    await gw?.close();
    await gwAccess?.close();
    await upstream?.close();
  });

  it('serves GET / as HTML under a strict CSP, naming the server and leaving the tools to the script', async () => {
    const r = await get(`${gw.url}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toBe(CSP);
    // frame-ancestors, again for browsers too old to read it.
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(r.headers.get('cache-control')).toBe('no-cache');
    expect(r.text).toContain('<code>catalog-demo</code>');
    expect(r.text).toContain('version 2.3.4');
    // The cards are built in the browser from GET /api; without access the page adds the
    // scopes each tool needs, which GET /api does not list.
    expect(r.text).toContain('<div id="tool-list"></div>');
    expect(r.text).not.toContain('<article');
    expect(r.text).toContain('data-scopes="{&quot;get_item&quot;:[&quot;items:read&quot;]}"');
    // No access block: no token field.
    expect(r.text).not.toContain('id="bearer-token"');
  });

  it('escapes every spec string and has no inline script or style', async () => {
    const { text } = await get(`${gw.url}/`);
    expect(text).not.toContain('<script>alert(1)</script>');
    expect(text).toContain('Catalog &lt;demo&gt; &amp; friends');
    expect(text).toContain('Never trust &lt;b&gt;markup&lt;/b&gt; in here.');
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
    expect(js.text).toContain("post(form, '/api/' + encodeURIComponent(tool)");
    // It parses (a syntax error would only show as a page without behaviour).
    expect(() => new Script(js.text, { filename: 'catalog.js' })).not.toThrow();
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

  it('with access, names no tool: server, MCP URL and token field only, and needs no token', async () => {
    const r = await get(`${gwAccess.url}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-security-policy')).toBe(CSP);
    expect(r.text).toContain('<input id="bearer-token" type="password"');
    expect(r.text).toContain('Catalog &lt;demo&gt; &amp; friends');
    expect(r.text).toContain('<code>catalog-demo</code>');
    expect(r.text).toContain('version 2.3.4');
    expect(r.text).toContain('Read items and manage things.');
    expect(r.text).toContain('id="mcp-url"');
    expect(r.text).toContain('Tools appear once a token is entered');
    for (const leak of [
      ...ALL_TOOLS,
      'get item',
      'One item by id',
      'Create a thing',
      'Delete a thing',
      'Its name.',
      'items:read',
      'things:write',
      'Needs scope',
      '/items/',
      '/things',
      'properties',
      'gadget',
      'badge',
      '<article',
      '<form',
      'class="toc"',
    ])
      expect(r.text.toLowerCase(), leak).not.toContain(leak.toLowerCase());
    // As GET /api itself: no token, no list.
    expect((await get(`${gwAccess.url}/api`)).status).toBe(401);
  });
});

describe.skipIf(SKIP_BROWSER)('catalog page in headless Chromium', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  let gwAccess: TestGateway;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    upstream = await startUpstream();
    gw = await startGateway(catalogSpec(upstream.url));
    gwAccess = await startGateway(catalogSpec(upstream.url, { access: true }), {
      env: ACCESS_ENV,
    });
    ({ context, profile } = await launchChromium());
  }, 90_000);

  afterAll(async () => {
    await closeChromium(context, profile);
    await gw?.close();
    await gwAccess?.close();
    await upstream?.close();
  });

  it('lists the tools, calls one from its try-it form and shows the envelope', async () => {
    upstream.requests.length = 0;
    const { page, problems } = await openPage(context, `${gw.url}/`);
    expect(await page.title()).toBe('Catalog <demo> & friends · tool catalog');
    await expect.poll(() => page.locator('article.tool').count()).toBe(3);
    const names = await page.locator('article.tool .tool-name').allTextContents();
    expect(names).toEqual(ALL_TOOLS);
    for (const name of ALL_TOOLS) {
      const tool = page.locator(`article#tool-${name}`);
      expect(await tool.locator('form.try').getAttribute('action')).toBe(`/api/${name}`);
      // The example starts from the required fields and defaults only.
      expect(await tool.locator('textarea').inputValue()).toBe(
        JSON.stringify(EXAMPLES[name], null, 2),
      );
    }
    // Annotation badges follow the verbs; without access a card names the scopes it needs.
    expect(await page.locator('#tool-get_item .badge-read-only').textContent()).toBe('read-only');
    expect(await page.locator('#tool-delete_thing .badge-destructive').count()).toBe(1);
    expect(await page.locator('#tool-get_item .scopes').textContent()).toBe(
      'Needs scope items:read',
    );
    expect(await page.locator('.scopes').count()).toBe(1);
    expect(await page.locator('nav .toc a').count()).toBe(3);
    // The escaped description shows as text, and the script it spells never ran.
    await expect
      .poll(() => page.locator('#tool-get_item .prose').textContent())
      .toBe('One item by id. <script>alert(1)</script>');
    // The MCP URL is filled in from the page's origin.
    expect(await page.inputValue('#mcp-url')).toBe(`${gw.url}/mcp`);
    expect(await page.locator('#bearer-token').count()).toBe(0);
    // A spec without resources or prompts shows neither section.
    expect(await page.locator('#resources').isHidden()).toBe(true);
    expect(await page.locator('#prompts').isHidden()).toBe(true);

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
  });

  it('wraps a long error message inside its box, with nothing to scroll sideways', async () => {
    const { page } = await openPage(context, `${gw.url}/`);
    const card = page.locator('#tool-get_item');
    // A key the tool does not declare is named in the refusal: one word of 300 letters.
    const undeclared = 'x'.repeat(300);
    await card.locator('textarea').fill(JSON.stringify({ id: '1', [undeclared]: 1 }));
    await card.getByRole('button', { name: 'Call' }).click();
    const envelope = card.locator('pre.envelope.error');
    await envelope.waitFor({ state: 'visible' });
    expect(await envelope.textContent()).toContain(`${undeclared} is not an argument of this tool`);
    const box = await envelope.evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth }));
    expect(box.scroll).toBeLessThanOrEqual(box.client);
    await page.close();
  });

  /** What GET /api tells this token (the page must show exactly that). */
  async function listing(
    token: string,
  ): Promise<{ name: string; title: string; description?: string; inputSchema: JsonSchema }[]> {
    const r = await get(`${gwAccess.url}/api`, { authorization: `Bearer ${token}` });
    expect(r.status).toBe(200);
    return (JSON.parse(r.text) as { tools: never[] }).tools;
  }

  it('with access, a token lists exactly the tools it may call, and calls them', async () => {
    upstream.requests.length = 0;
    const { page, problems } = await openPage(context, `${gwAccess.url}/`);
    const cards = page.locator('article.tool');
    const status = page.locator('#tools-status');
    const names = () => page.locator('article.tool .tool-name').allTextContents();

    // Without a token: no tool, a note, and nothing asked of the gateway.
    expect(await cards.count()).toBe(0);
    expect(await status.textContent()).toMatch(/^Tools appear once a token is entered/);
    expect(await page.inputValue('#mcp-url')).toBe(`${gwAccess.url}/mcp`);

    // A wrong token: the gateway's 401, said in words, and still no tool.
    await page.fill('#bearer-token', 'not-a-key');
    await page.getByRole('button', { name: 'Show tools' }).click();
    await expect
      .poll(() => status.textContent())
      .toBe('The gateway did not accept this token (HTTP 401 Unauthorized): invalid token');
    expect(await status.getAttribute('class')).toBe('notice error');
    expect(await cards.count()).toBe(0);
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: join(OUTPUT_DIR, 'catalog-access-401.png') });

    // The reading key sees get_item only; Enter takes the token too.
    await page.fill('#bearer-token', READ_KEY);
    await page.press('#bearer-token', 'Enter');
    await expect.poll(names).toEqual((await listing(READ_KEY)).map((t) => t.name));
    expect(await names()).toEqual(['get_item']);
    expect(await page.locator('#tool-count').textContent()).toBe('1');
    expect(await status.isHidden()).toBe(true);

    // The writing key sees all three, as server-rendered cards would show them.
    await page.fill('#bearer-token', API_KEY);
    await page.getByRole('button', { name: 'Show tools' }).click();
    await expect.poll(names).toEqual(ALL_TOOLS);
    expect(await page.locator('#tool-count').textContent()).toBe('3');
    expect(await page.locator('nav .toc a').count()).toBe(3);
    const tools = await listing(API_KEY);
    for (const t of tools) {
      const card = page.locator(`#tool-${t.name}`);
      expect(await card.locator('.tool-title').textContent()).toBe(t.title);
      expect(await card.locator('.prose').textContent()).toBe(t.description);
      expect(JSON.parse((await card.locator('details.schema pre').textContent()) ?? '')).toEqual(
        t.inputSchema,
      );
      expect(await card.locator('textarea').inputValue()).toBe(
        JSON.stringify(EXAMPLES[t.name], null, 2),
      );
      expect(await card.locator('form.try').getAttribute('action')).toBe(`/api/${t.name}`);
    }
    expect(await page.locator('#tool-get_item .badge-read-only').textContent()).toBe('read-only');
    expect(await page.locator('#tool-delete_thing .badge-destructive').count()).toBe(1);
    // The description's markup is text: nothing it spells became an element.
    expect(await page.locator('#tool-list script, #tool-list b').count()).toBe(0);
    // With access a card names no scope.
    expect(await page.locator('.scopes').count()).toBe(0);

    // Kept across a reload of the tab, in sessionStorage only, and listed again at once.
    await page.reload({ waitUntil: 'load' });
    expect(await page.inputValue('#bearer-token')).toBe(API_KEY);
    expect(await page.evaluate("sessionStorage.getItem('mcp-beaver:bearer-token')")).toBe(API_KEY);
    await expect.poll(names).toEqual(ALL_TOOLS);

    // The try-it form sends the token as a bearer header.
    const card = page.locator('#tool-get_item');
    await card.locator('textarea').fill('{ "id": "7" }');
    await card.getByRole('button', { name: 'Call' }).click();
    await expect.poll(() => card.locator('.call-status').textContent()).toMatch(/^HTTP 200\b/);
    expect(JSON.parse((await card.locator('pre.envelope').textContent()) ?? '')).toMatchObject({
      result: { ok: true, method: 'GET', path: '/items/7' },
    });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.path).toBe('/items/7');
    expect(page.url()).toBe(`${gwAccess.url}/`);
    expect(page.url()).not.toContain(API_KEY);

    await page.locator('#tool-create_thing summary').click();
    await page.screenshot({ path: join(OUTPUT_DIR, 'catalog-access.png'), fullPage: true });

    // Forget: the token and the tools go, the note comes back.
    await page.getByRole('button', { name: 'Forget' }).click();
    expect(await cards.count()).toBe(0);
    expect(await status.textContent()).toMatch(/^Tools appear once a token is entered/);
    expect(await page.evaluate("sessionStorage.getItem('mcp-beaver:bearer-token')")).toBeNull();

    // The only problems are the deliberate 401 and the browser's console note about it.
    expect(problems).toEqual([
      `HTTP 401 ${gwAccess.url}/api`,
      expect.stringMatching(/^console: Failed to load resource: .*status of 401/),
    ]);
    await page.close();
  });
});

const SURFACE_FULL_KEY = 'catalog-surfaces-full-41d9';
const SURFACE_READ_KEY = 'catalog-surfaces-read-8a02';
const GUIDE = '# Guide\n\nAnswer within a day.\n';

describe.skipIf(SKIP_BROWSER)('catalog page in headless Chromium: resources and prompts', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    upstream = await startUpstream();
    // A helpdesk with a document, a scoped note, a ticket template and a prompt, behind two keys.
    gw = await startHelpdeskGateway(
      {
        name: 'catalog-surfaces',
        baseUrl: upstream.url,
        guideDescribe: 'How we answer <b>fast</b>.',
      },
      { guide: GUIDE, env: { FULL_KEYS: SURFACE_FULL_KEY, READER_KEYS: SURFACE_READ_KEY } },
    );
    ({ context, profile } = await launchChromium());
  }, 90_000);

  afterAll(async () => {
    await closeChromium(context, profile);
    await gw?.close();
    await upstream?.close();
  });

  it('shows each token the resources and prompts it may use, and reads and gets them', async () => {
    upstream.requests.length = 0;
    const { page, problems } = await openPage(context, `${gw.url}/`);
    // Without a token nothing is listed, resources and prompts included.
    expect(await page.locator('#resources').isHidden()).toBe(true);
    expect(await page.locator('#prompts').isHidden()).toBe(true);
    const uris = () => page.locator('#resource-list .tool-name').allTextContents();

    // The reading key: the guide and the ticket template, not the audit note.
    await page.fill('#bearer-token', SURFACE_READ_KEY);
    await page.press('#bearer-token', 'Enter');
    await expect.poll(uris).toEqual(['docs://helpdesk/guide', 'helpdesk://tickets/{id}']);
    expect(await page.locator('#resource-count').textContent()).toBe('2');
    expect(await page.locator('#prompt-list .tool-name').allTextContents()).toEqual([
      'triage-ticket',
    ]);

    // The full key sees the audit note too, exactly as GET /api lists it for that key.
    await page.fill('#bearer-token', SURFACE_FULL_KEY);
    await page.getByRole('button', { name: 'Show tools' }).click();
    await expect
      .poll(uris)
      .toEqual(['docs://helpdesk/guide', 'docs://helpdesk/audit', 'helpdesk://tickets/{id}']);
    const listed = (await (
      await fetch(`${gw.url}/api`, { headers: { authorization: `Bearer ${SURFACE_FULL_KEY}` } })
    ).json()) as { resources: { uri: string }[]; resourceTemplates: { uriTemplate: string }[] };
    expect(await uris()).toEqual([
      ...listed.resources.map((r) => r.uri),
      ...listed.resourceTemplates.map((t) => t.uriTemplate),
    ]);

    const guide = page.locator('#resource-guide');
    expect(await guide.locator('.tool-title').textContent()).toBe('Guide');
    expect(await guide.locator('.badge-mime').textContent()).toBe('text/markdown');
    // The description's markup is text.
    expect(await guide.locator('.prose').textContent()).toBe('How we answer <b>fast</b>.');
    expect(await page.locator('#resource-list b').count()).toBe(0);

    // Read the document: its text, and nothing asked of the upstream.
    await guide.getByRole('button', { name: 'Read' }).click();
    await expect.poll(() => guide.locator('.call-status').textContent()).toMatch(/^HTTP 200\b/);
    expect(await guide.locator('pre.envelope').textContent()).toBe(GUIDE);
    expect(upstream.requests).toHaveLength(0);

    // Read the template with a variable: the grant is called once, as this key.
    const ticket = page.locator('#template-tickets');
    await ticket.locator('#template-tickets-id').fill('42');
    await ticket.getByRole('button', { name: 'Read' }).click();
    await expect.poll(() => ticket.locator('.call-status').textContent()).toMatch(/^HTTP 200\b/);
    expect(JSON.parse((await ticket.locator('pre.envelope').textContent()) ?? '')).toMatchObject({
      result: { ok: true, method: 'GET', path: '/tickets/42' },
    });
    expect(upstream.requests.map((r) => r.path)).toEqual(['/tickets/42']);

    // Get the prompt: the tone is a choice starting at its default; the ticket is embedded.
    const prompt = page.locator('#prompt-triage-ticket');
    expect(await prompt.locator('#prompt-triage-ticket-tone').inputValue()).toBe('friendly');
    await prompt.locator('#prompt-triage-ticket-id').fill('7');
    await prompt.locator('#prompt-triage-ticket-tone').selectOption('formal');
    await prompt.getByRole('button', { name: 'Get' }).click();
    await expect.poll(() => prompt.locator('.call-status').textContent()).toMatch(/^HTTP 200\b/);
    const shown = (await prompt.locator('pre.envelope').textContent()) ?? '';
    expect(shown).toMatch(
      /^\[user\]\nTriage ticket 7 in a formal tone\.\n\n\[user\] resource helpdesk:\/\/tickets\/7 \(application\/json\)\n\{/,
    );
    expect(upstream.requests.map((r) => r.path)).toEqual(['/tickets/42', '/tickets/7']);

    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: join(OUTPUT_DIR, 'catalog-resources.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});
