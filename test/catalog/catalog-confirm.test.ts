/**
 * The catalog page's confirmation view (issue 41): `/confirm/<id>`, the URL a client that
 * declared only URL elicitation is sent to, served under the catalog's headers (frame-
 * denied, no inline code); then, in headless Chromium under its real CSP, the caller's
 * own key shows the waiting call with its filled message (as text), and Confirm lets the
 * SDK v2 client's retry run the call once; another caller's key is refused and sees
 * nothing, and Decline makes the call refused. Screenshots are written to
 * test-output/catalog-confirm.png and catalog-confirm-refused.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeChromium, launchChromium, openPage, browserSkip } from '../helpers/chromium.js';
import { modernClient, postModernCall, inputRequiredOf, URL_CAPS } from '../helpers/consent.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { skipBecause } from '../helpers/skip-reason.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const SKIP_BROWSER = skipBecause(...browserSkip('catalog-confirm.test.ts'));
const OUTPUT_DIR = fileURLToPath(new URL('../../test-output/', import.meta.url));
const CSP = "default-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";
const AGENT_KEY = 'confirm-agent-4c8e1b27';
const OTHER_KEY = 'confirm-other-9a3d6f50';
const ENV = { AGENT_KEY, OTHER_KEY, CONFIRM_KEY: '5e'.repeat(32) };
/** A note id spelling markup: the page shows it as text, and nothing it spells runs. */
const NOTE = 'n_<img src=x>7';

function spec(upstream: string): string {
  return `
wrap "confirm-demo" version="1.0.0"
base-url "${upstream}"
access confirm-key-env="CONFIRM_KEY" {
    api-key env="AGENT_KEY" scopes="notes:write"
    api-key env="OTHER_KEY" scopes="notes:write"
}
can delete note {
    describe "Delete a note."
    path "/notes/{note}"
    scope "notes:write"
    confirm "Delete note {note}? This cannot be undone."
}
`;
}

type TextResult = { isError?: boolean; content: { text: string }[] };

/** The page of a confirmation asked now, as a URL-only 2026-07-28 client is sent to it. */
async function askedPage(gw: TestGateway, key: string, note: string): Promise<string> {
  const asked = inputRequiredOf(
    (await postModernCall(gw.url, key, 'delete_note', { note }, { capabilities: URL_CAPS })).json,
  );
  return String(asked.inputRequests.confirm!.params.url);
}

describe('the confirmation view over HTTP', () => {
  let upstream: Upstream;
  let gw: TestGateway;

  useGatewayOnUpstream(spec, { env: ENV }, (s) => ({ upstream, gw } = s));

  it('serves the URL the client is sent to as the catalog page, never framed, naming nothing of the call', async () => {
    const url = await askedPage(gw, AGENT_KEY, NOTE);
    expect(url).toMatch(new RegExp(`^${gw.url}/confirm/[A-Za-z0-9][\\w-]{21}$`));
    const res = await fetch(url);
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(CSP);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(text).toContain('data-view="confirm"');
    // The page names no confirmation: its message is for the caller's key alone.
    expect(text).not.toContain('Delete note');
    expect(text).not.toContain(url.slice(url.lastIndexOf('/') + 1));
    expect(text).not.toMatch(/<script>|\son\w+=/);
    // Nothing else lives under /confirm.
    expect((await fetch(`${url}/more`)).status).toBe(404);
    expect((await fetch(`${gw.url}/confirm`)).status).toBe(404);
    expect(upstream.requests).toHaveLength(0);
  });
});

describe.skipIf(SKIP_BROWSER)('the confirmation view in headless Chromium', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    upstream = await startUpstream();
    gw = await startGateway(spec(upstream.url), { env: ENV });
    ({ context, profile } = await launchChromium());
  }, 90_000);

  afterAll(async () => {
    await closeChromium(context, profile);
    await gw?.close();
    await upstream?.close();
  });

  const useKey = async (page: Page, key: string) => {
    await page.fill('#bearer-token', key);
    await page.getByRole('button', { name: 'Show confirmation' }).click();
  };

  it('the caller confirms on /confirm/<id> with its own key, and the SDK v2 client’s retry then runs the call once', async () => {
    upstream.requests.length = 0;
    const problems: string[] = [];
    const client = await modernClient(gw.url, AGENT_KEY, URL_CAPS, async (params) => {
      // What a host does with a URL elicitation: the user opens it in a browser.
      const opened = await openPage(context, String(params.url));
      const page = opened.page;
      expect(await page.title()).toBe('confirm-demo · confirmation');
      expect(await page.locator('#confirmation').isVisible()).toBe(true);
      expect(await page.locator('#tools').isHidden()).toBe(true);
      expect(await page.locator('#confirmation-call').count()).toBe(0);
      expect(await page.locator('#confirmation-status').textContent()).toMatch(
        /^Enter the key of the caller that made this call/,
      );
      await useKey(page, AGENT_KEY);
      const card = page.locator('#confirmation-call');
      await expect.poll(() => card.isVisible()).toBe(true);
      expect(await page.locator('#confirmation-tool').textContent()).toBe('delete_note');
      expect(await page.locator('#confirmation-message').textContent()).toBe(
        `Delete note ${NOTE}? This cannot be undone.`,
      );
      expect(await page.locator('#confirmation img').count()).toBe(0);
      expect(await page.locator('#confirmation-state').textContent()).toBe(
        'Waiting for your answer.',
      );
      expect(await page.locator('#confirmation-expires').getAttribute('datetime')).toMatch(
        /^\d{4}-\d\d-\d\dT/,
      );
      mkdirSync(OUTPUT_DIR, { recursive: true });
      await page.screenshot({ path: join(OUTPUT_DIR, 'catalog-confirm.png'), fullPage: true });
      expect(upstream.requests).toHaveLength(0);

      await page.getByRole('button', { name: 'Confirm', exact: true }).click();
      await expect
        .poll(() => page.locator('#confirmation-outcome').textContent())
        .toBe('Confirmed. The call runs once, when the client makes it again.');
      await expect
        .poll(() => page.locator('#confirmation-state').textContent())
        .toMatch(/^Confirmed: /);
      // Answered: no button that can only fail.
      expect(await card.locator('button').count()).toBe(0);
      expect(upstream.requests).toHaveLength(0);
      problems.push(...opened.problems);
      await page.close();
      return { action: 'accept' };
    });
    try {
      const result = (await client.callTool({
        name: 'delete_note',
        arguments: { note: NOTE },
      })) as TextResult;
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `DELETE /notes/${encodeURIComponent(NOTE)}`,
    ]);
    expect(problems).toEqual([]);
  });

  it('another caller’s key is refused and sees nothing of the call; its own caller then declines, and the call is refused', async () => {
    upstream.requests.length = 0;
    const url = await askedPage(gw, AGENT_KEY, 'n_9');
    const { page, problems } = await openPage(context, url);
    await useKey(page, OTHER_KEY);
    const status = page.locator('#confirmation-status');
    await expect
      .poll(() => status.textContent())
      .toMatch(
        /^The confirmation cannot be shown \(HTTP 403 Forbidden\): CONFIRMATION_OTHER_CALLER: /,
      );
    expect(await page.locator('#confirmation-call').count()).toBe(0);
    expect(await page.locator('#confirmation').textContent()).not.toContain('Delete note');
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({
      path: join(OUTPUT_DIR, 'catalog-confirm-refused.png'),
      fullPage: true,
    });

    // The key that made the call, in the same tab: the buttons, and Decline.
    await page.getByRole('button', { name: 'Forget' }).click();
    await useKey(page, AGENT_KEY);
    await expect.poll(() => page.locator('#confirmation-call').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Decline' }).click();
    await expect
      .poll(() => page.locator('#confirmation-outcome').textContent())
      .toBe('Declined. The call will not run.');
    await expect
      .poll(() => page.locator('#confirmation-state').textContent())
      .toMatch(/^Declined: /);

    const repeated = await postModernCall(
      gw.url,
      AGENT_KEY,
      'delete_note',
      { note: 'n_9' },
      {
        capabilities: URL_CAPS,
      },
    );
    const result = (repeated.json as { result: TextResult }).result;
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^CONFIRMATION_DECLINED: /);
    expect(upstream.requests).toHaveLength(0);
    expect(problems).toEqual([
      expect.stringMatching(/^HTTP 403 .*\/api\/confirmations\//),
      expect.stringMatching(/^console: Failed to load resource: .*status of 403/),
    ]);
    await page.close();
  });
});
