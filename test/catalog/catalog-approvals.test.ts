/**
 * The catalog page's approvals view (issue 29): `/approvals/<id>`, the URL an agent's
 * APPROVAL_REQUIRED answer names, served under the catalog's headers; then, in headless
 * Chromium under its real CSP, an approver's key lists the waiting call with its filled
 * message (as text), approves or declines it, and the agent's repeat runs once or is
 * refused; the agent's own key sees its call with no buttons. Screenshots are written to
 * test-output/catalog-approvals.png and catalog-approvals-own.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { skipBecause } from '../helpers/skip-reason.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeChromium, launchChromium, openPage, browserSkip } from '../helpers/chromium.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const SKIP_BROWSER = skipBecause(...browserSkip('catalog-approvals.test.ts'));
const OUTPUT_DIR = fileURLToPath(new URL('../../test-output/', import.meta.url));
const CSP = "default-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";
/** Asks for refunds; it holds the approving scope too, which never lets it approve its own. */
const AGENT_KEY = 'approvals-agent-5e2b7c91';
const FINANCE_KEY = 'approvals-finance-0d4a6f38';
const ENV = { AGENT_KEY, FINANCE_KEY };
/** A payment id spelling markup: the message shows it as text, and nothing it spells runs. */
const PAYMENT = 'pay_<img src=x>42';

function spec(upstream: string): string {
  return `
wrap "approvals-demo" version="1.0.0"
base-url "${upstream}"
access {
    api-key env="AGENT_KEY" scopes="payments:write payments:approve"
    api-key env="FINANCE_KEY" scopes="payments:approve"
}
can create refund {
    describe "Refund part of a payment."
    path "/payments/{payment}/refunds"
    body { amount "integer" required=#true min=1 }
    scope "payments:write"
    approve "Refund {amount} cents on payment {payment}" by="payments:approve" expires="15m"
}
`;
}

interface Asked {
  id: string;
  url: string;
  message: string;
}

/** The agent's call over REST; the first one is parked (202) and names its approval. */
async function refund(gw: TestGateway, amount: number) {
  return postJson(
    `${gw.url}/api/create_refund`,
    { payment: PAYMENT, amount },
    { authorization: `Bearer ${AGENT_KEY}` },
  );
}

async function askApproval(gw: TestGateway, amount: number): Promise<Asked> {
  const r = await refund(gw, amount);
  expect(r.status).toBe(202);
  const error = (r.json as { error: { code: string; details: { approval: Asked } } }).error;
  expect(error.code).toBe('APPROVAL_REQUIRED');
  return error.details.approval;
}

describe('the approvals view over HTTP', () => {
  let upstream: Upstream;
  let gw: TestGateway;

  useGatewayOnUpstream(spec, { env: ENV }, (s) => ({ upstream, gw } = s));

  it('serves the approval URL an agent is given as the catalog page, never framed', async () => {
    const asked = await askApproval(gw, 100);
    expect(asked.url).toBe(`${gw.url}/approvals/${encodeURIComponent(asked.id)}`);
    for (const url of [asked.url, `${gw.url}/approvals`, `${gw.url}/`]) {
      const res = await fetch(url);
      const text = await res.text();
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toBe(CSP);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(text).toContain(url.endsWith('/') ? 'data-view="tools"' : 'data-view="approvals"');
      // The page names no approval: its message is for a token that may see it.
      expect(text).not.toContain('Refund');
      expect(text).not.toContain(asked.id);
    }
    // An agent cannot reach past the view: nothing else lives under /approvals.
    expect((await fetch(`${asked.url}/more`)).status).toBe(404);
    expect(upstream.requests).toHaveLength(0);
  });
});

describe.skipIf(SKIP_BROWSER)('the approvals view in headless Chromium', () => {
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
    await page.getByRole('button', { name: 'Show approvals' }).click();
  };

  it('an approver approves and declines from the URL the agent was given; the repeats run once or are refused', async () => {
    upstream.requests.length = 0;
    const first = await askApproval(gw, 500);
    expect(first.message).toBe(`Refund 500 cents on payment ${PAYMENT}`);
    const { page, problems } = await openPage(context, first.url);
    expect(await page.title()).toBe('approvals-demo · approvals');
    const cards = page.locator('article.approval');
    const outcome = page.locator('#approval-outcome');
    const status = page.locator('#approvals-status');

    // Before a key: the view, its tab current, and no approval asked for.
    expect(await page.locator('#approvals').isVisible()).toBe(true);
    expect(await page.locator('#tools').isHidden()).toBe(true);
    expect(await page.locator('#connect').isHidden()).toBe(true);
    expect(await page.locator('#view-approvals').getAttribute('aria-current')).toBe('page');
    expect(await status.textContent()).toMatch(/^Approvals appear once a token is entered/);
    expect(await cards.count()).toBe(0);

    // The approver's key lists it, marked as the one the address names, its message as text.
    await useKey(page, FINANCE_KEY);
    await expect.poll(() => cards.count()).toBe(1);
    const card = page.locator(`article[id="approval-${first.id}"]`);
    expect(await card.getAttribute('class')).toBe('tool approval named');
    expect(await card.getAttribute('aria-current')).toBe('true');
    expect(await card.locator('.tool-name').textContent()).toBe('create_refund');
    expect(await card.locator('.approval-message').textContent()).toBe(first.message);
    expect(await page.locator('#approval-list img').count()).toBe(0);
    expect(await card.locator('.badge-scope').textContent()).toBe('payments:approve');
    expect(await card.locator('.facts dd code').textContent()).toBe('api-key:AGENT_KEY#1');
    // Requested and expires, each with its exact instant.
    expect(await card.locator('time').nth(1).getAttribute('datetime')).toBe(
      (await listed(FINANCE_KEY))[0]!.expires_at,
    );
    expect(await page.locator('#approval-count').textContent()).toBe('1');
    expect(await status.isHidden()).toBe(true);
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: join(OUTPUT_DIR, 'catalog-approvals.png'), fullPage: true });

    // Approve: the outcome stays, the list is asked again and no longer holds it.
    expect(upstream.requests).toHaveLength(0);
    await card.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => outcome.textContent()).toMatch(/^Approved create_refund: /);
    await expect.poll(() => cards.count()).toBe(0);
    expect(await status.textContent()).toMatch(/^The approval this address names is not waiting/);
    expect(upstream.requests).toHaveLength(0);

    // The agent's repeat runs the call, once.
    const ran = await refund(gw, 500);
    expect(ran.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.method).toBe('POST');
    expect(upstream.requests[0]!.path).toBe(`/payments/${encodeURIComponent(PAYMENT)}/refunds`);
    expect(JSON.parse(upstream.requests[0]!.body)).toEqual({ amount: 500 });

    // A second call, declined from its own URL; the key is kept in the tab.
    const second = await askApproval(gw, 700);
    await page.goto(second.url, { waitUntil: 'load' });
    expect(await page.inputValue('#bearer-token')).toBe(FINANCE_KEY);
    const secondCard = page.locator(`article[id="approval-${second.id}"]`);
    await expect.poll(() => secondCard.count()).toBe(1);
    expect(await secondCard.locator('.approval-message').textContent()).toBe(
      `Refund 700 cents on payment ${PAYMENT}`,
    );
    await secondCard.getByRole('button', { name: 'Decline' }).click();
    await expect.poll(() => outcome.textContent()).toMatch(/^Declined create_refund: /);
    await expect.poll(() => cards.count()).toBe(0);
    const declined = await refund(gw, 700);
    expect(declined.status).toBe(403);
    expect((declined.json as { error: { code: string } }).error.code).toBe('APPROVAL_DECLINED');
    expect(upstream.requests).toHaveLength(1);

    // A card decided elsewhere meanwhile: the gateway's refusal is said, and the list renewed.
    const third = await askApproval(gw, 900);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const thirdCard = page.locator(`article[id="approval-${third.id}"]`);
    await expect.poll(() => thirdCard.count()).toBe(1);
    expect(await thirdCard.getAttribute('class')).toBe('tool approval');
    const elsewhere = await postJson(
      `${gw.url}/api/approvals/${encodeURIComponent(third.id)}`,
      { decision: 'decline' },
      { authorization: `Bearer ${FINANCE_KEY}` },
    );
    expect(elsewhere.status).toBe(200);
    await thirdCard.getByRole('button', { name: 'Approve' }).click();
    await expect
      .poll(() => outcome.textContent())
      .toMatch(/^Not approved \(HTTP 409 Conflict\): APPROVAL_DECIDED: /);
    expect(await outcome.getAttribute('class')).toBe('notice error');
    await expect.poll(() => cards.count()).toBe(0);
    expect(upstream.requests).toHaveLength(1);

    expect(problems).toEqual([
      `HTTP 409 ${gw.url}/api/approvals/${encodeURIComponent(third.id)}`,
      expect.stringMatching(/^console: Failed to load resource: .*status of 409/),
    ]);
    await page.close();
  });

  /** What GET /api/approvals tells this key (the page must show exactly that). */
  async function listed(key: string): Promise<{ id: string; expires_at: string; own: boolean }[]> {
    const res = await fetch(`${gw.url}/api/approvals`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { approvals: never[] }).approvals;
  }

  it('shows the agent its own call with no button: someone else must decide', async () => {
    const asked = await askApproval(gw, 1100);
    expect((await listed(AGENT_KEY)).find((a) => a.id === asked.id)?.own).toBe(true);
    const { page, problems } = await openPage(context, asked.url);
    await useKey(page, AGENT_KEY);
    const card = page.locator(`article[id="approval-${asked.id}"]`);
    await expect.poll(() => card.count()).toBe(1);
    expect(await card.locator('.approval-message').textContent()).toBe(asked.message);
    expect(await card.locator('.own').textContent()).toBe(
      'Your own call: someone else must decide.',
    );
    expect(await card.locator('button').count()).toBe(0);
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: join(OUTPUT_DIR, 'catalog-approvals-own.png'), fullPage: true });

    // The finance key, in the same tab, may decide it.
    await page.getByRole('button', { name: 'Forget' }).click();
    expect(await page.locator('article.approval').count()).toBe(0);
    await useKey(page, FINANCE_KEY);
    await expect.poll(() => card.locator('button').count()).toBe(2);
    expect(await card.locator('.own').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });
});
