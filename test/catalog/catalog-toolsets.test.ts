/**
 * Toolsets on the catalog page (spec-language.md, "Toolsets"): `/?toolset=<name>` is the
 * same page as `/`, naming no toolset; in headless Chromium under its real CSP the whole
 * list links every toolset GET /api names, and a toolset's page shows only its members as
 * the token's scopes allow, its own MCP URL to copy, its name and describe (as text) and
 * a link back; a name no toolset has is said in the gateway's words. Screenshots are
 * written to test-output/catalog-toolsets-list.png, catalog-toolsets.png and
 * catalog-toolsets-404.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { skipBecause } from '../helpers/skip-reason.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeChromium, launchChromium, openPage, browserSkip } from '../helpers/chromium.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';

const SKIP_BROWSER = skipBecause(...browserSkip('catalog-toolsets.test.ts'));
const OUTPUT_DIR = fileURLToPath(new URL('../../test-output/', import.meta.url));
const FULL_KEY = 'catalog-toolsets-full-6a1f03';
const READER_KEY = 'catalog-toolsets-reader-c27e94';
const ENV = { FULL_KEY, READER_KEY };
const TRIAGE_DESCRIBE = 'Read issues <b>and</b> comment on them.';
const TOOLSETS_NAMED = "the spec's toolsets are triage, lookups, label-admin";

function spec(upstream: string, opts: { access: boolean }): string {
  const scope = (s: string) => (opts.access ? `scope "${s}"` : '');
  return `
wrap "toolsets-catalog" version="1.0.0" {
    title "Issue desk"
}
base-url "${upstream}"
${
  opts.access
    ? `access {
    api-key env="FULL_KEY" scopes="issues:read issues:write labels:read labels:write"
    api-key env="READER_KEY" scopes="issues:read"
}`
    : ''
}
can list issues {
    path "/issues"
    ${scope('issues:read')}
}
can get issue {
    path "/issues/{id}"
    ${scope('issues:read')}
}
can create comment {
    path "/issues/{id}/comments"
    body { text "string" required=#true }
    ${scope('issues:write')}
}
can get label {
    path "/labels/{name}"
    ${scope('labels:read')}
}
can delete label {
    path "/labels/{name}"
    ${scope('labels:write')}
}
resource "docs://handbook" text="Be kind." describe="The handbook."
prompt "triage-issue" {
    argument "id" required=#true
    message "user" "Triage issue {id}."
}
toolset "triage" {
    describe "${TRIAGE_DESCRIBE}"
    tools "list_issues" "get_issue" "create_comment"
    resources "docs://handbook"
}
toolset "lookups" {
    describe "Look one thing up."
    tools "get_*"
}
toolset "label-admin" {
    tools "delete_label"
}
`;
}

describe('the toolset page over HTTP', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway(spec('http://127.0.0.1:9', { access: true }), { env: ENV });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('is the page of / whatever the toolset, naming none: the script asks GET /api?toolset=', async () => {
    const whole = await (await fetch(`${gw.url}/`)).text();
    for (const query of ['toolset=triage', 'toolset=nope', 'toolset=a&toolset=b']) {
      const res = await fetch(`${gw.url}/?${query}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toBe(whole);
    }
    // Toolset names and describes are for an authenticated caller, not the open page.
    expect(whole).not.toContain('Read issues');
    expect(whole).not.toContain('label-admin');
  });
});

describe.skipIf(SKIP_BROWSER)('toolsets on the catalog page in headless Chromium', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  let open: TestGateway;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    upstream = await startUpstream();
    gw = await startGateway(spec(upstream.url, { access: true }), { env: ENV });
    open = await startGateway(spec(upstream.url, { access: false }));
    ({ context, profile } = await launchChromium());
  }, 90_000);

  afterAll(async () => {
    await closeChromium(context, profile);
    await gw?.close();
    await open?.close();
    await upstream?.close();
  });

  const toolNames = (page: Page) => page.locator('#tool-list article .tool-name').allTextContents();
  const useKey = async (page: Page, key: string) => {
    await page.fill('#bearer-token', key);
    await page.getByRole('button', { name: 'Show tools' }).click();
  };

  it('links every toolset from the whole list, and a toolset’s page shows its members, its URL and its describe', async () => {
    upstream.requests.length = 0;
    const { page, problems } = await openPage(context, `${gw.url}/`);
    // Before a token: no toolset named, none asked for.
    expect(await page.locator('#toolsets').isHidden()).toBe(true);
    await useKey(page, READER_KEY);
    await expect.poll(() => toolNames(page)).toEqual(['list_issues', 'get_issue']);

    // Every toolset, the reader's scopes notwithstanding, each linking its page.
    const links = page.locator('#toolset-list li');
    expect(await page.locator('#toolsets').isVisible()).toBe(true);
    expect(await page.locator('#toolset-count').textContent()).toBe('3');
    expect(await links.locator('a').allTextContents()).toEqual([
      'triage',
      'lookups',
      'label-admin',
    ]);
    expect(
      await links.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href'))),
    ).toEqual(['/?toolset=triage', '/?toolset=lookups', '/?toolset=label-admin']);
    expect(await links.locator('.toolset-path').allTextContents()).toEqual([
      '/mcp/triage',
      '/mcp/lookups',
      '/mcp/label-admin',
    ]);
    expect(await links.first().locator('.prose').textContent()).toBe(TRIAGE_DESCRIBE);
    expect(await page.locator('#toolset-list b').count()).toBe(0);
    expect(await page.locator('#toolset-id').isHidden()).toBe(true);
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: join(OUTPUT_DIR, 'catalog-toolsets-list.png') });

    // The triage page: the reader's members only, the toolset's own URL, its name and describe.
    await links.locator('a', { hasText: 'triage' }).click();
    await page.waitForURL(`${gw.url}/?toolset=triage`);
    await expect.poll(() => toolNames(page)).toEqual(['list_issues', 'get_issue']);
    expect(await page.title()).toBe('Issue desk · toolset triage');
    expect(await page.inputValue('#mcp-url')).toBe(`${gw.url}/mcp/triage`);
    expect(await page.locator('#toolset-name').textContent()).toBe('triage');
    expect(await page.locator('#toolset-describe').textContent()).toBe(TRIAGE_DESCRIBE);
    expect(await page.locator('header b').count()).toBe(0);
    expect(await page.locator('#toolset-back').getAttribute('href')).toBe('/');
    expect(await page.locator('#rest-listing').textContent()).toBe('GET /api?toolset=triage');
    expect(await page.locator('#toolsets').isHidden()).toBe(true);
    // Its member resource; it has no prompt, so no prompt section.
    expect(await page.locator('article.resource .tool-name').allTextContents()).toEqual([
      'docs://handbook',
    ]);
    expect(await page.locator('#prompts').isHidden()).toBe(true);

    // The full key sees the member it may also write with; a call is the same call.
    await useKey(page, FULL_KEY);
    await expect
      .poll(() => toolNames(page))
      .toEqual(['list_issues', 'get_issue', 'create_comment']);
    const card = page.locator('#tool-get_issue');
    await card.locator('textarea').fill('{ "id": "12" }');
    await card.getByRole('button', { name: 'Call' }).click();
    await expect.poll(() => card.locator('.call-status').textContent()).toMatch(/^HTTP 200\b/);
    expect(upstream.requests.map((r) => r.path)).toEqual(['/issues/12']);
    await page.screenshot({ path: join(OUTPUT_DIR, 'catalog-toolsets.png'), fullPage: true });

    // Back to the whole list.
    await page.locator('#toolset-back').click();
    await page.waitForURL(`${gw.url}/`);
    await expect.poll(() => toolNames(page)).toHaveLength(5);
    expect(await page.inputValue('#mcp-url')).toBe(`${gw.url}/mcp`);
    expect(await page.locator('#toolset-id').isHidden()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('says in the gateway’s words that no toolset has the name, as text, with no URL to copy', async () => {
    const { page, problems } = await openPage(
      context,
      `${gw.url}/?toolset=${encodeURIComponent('<img src=x>')}`,
    );
    // The name from the address is text in the header, even before a token.
    expect(await page.locator('#toolset-name').textContent()).toBe('<img src=x>');
    expect(await page.locator('img').count()).toBe(0);
    await useKey(page, FULL_KEY);
    const status = page.locator('#tools-status');
    await expect
      .poll(() => status.textContent())
      .toBe(
        `The tools of this toolset could not be listed (HTTP 404 Not Found): no toolset named "<img src=x>"; ${TOOLSETS_NAMED}`,
      );
    expect(await status.getAttribute('class')).toBe('notice error');
    expect(await page.locator('#connect').isHidden()).toBe(true);
    expect(await page.locator('#tool-list article').count()).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: join(OUTPUT_DIR, 'catalog-toolsets-404.png') });
    expect(problems).toEqual([
      `HTTP 404 ${gw.url}/api?toolset=%3Cimg%20src%3Dx%3E`,
      expect.stringMatching(/^console: Failed to load resource: .*status of 404/),
    ]);
    await page.close();
  });

  it('without access, lists a toolset’s members at once, and refuses a repeated toolset', async () => {
    const { page, problems } = await openPage(context, `${open.url}/?toolset=lookups`);
    await expect.poll(() => toolNames(page)).toEqual(['get_issue', 'get_label']);
    expect(await page.inputValue('#mcp-url')).toBe(`${open.url}/mcp/lookups`);
    expect(await page.locator('#toolset-describe').textContent()).toBe('Look one thing up.');
    expect(await page.locator('#resources').isHidden()).toBe(true);

    await page.goto(`${open.url}/?toolset=lookups&toolset=triage`, { waitUntil: 'load' });
    await expect
      .poll(() => page.locator('#tools-status').textContent())
      .toBe(
        `The tools of this toolset could not be listed (HTTP 404 Not Found): the toolset parameter is given 2 times ("lookups", "triage"): name one toolset; ${TOOLSETS_NAMED}`,
      );
    expect(problems).toEqual([
      `HTTP 404 ${open.url}/api?toolset=lookups&toolset=triage`,
      expect.stringMatching(/^console: Failed to load resource: .*status of 404/),
    ]);
    await page.close();
  });
});
