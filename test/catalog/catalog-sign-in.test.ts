/**
 * The approvals and confirm views of a gateway with `sign-in` (issue 42), in headless
 * Chromium under the page's real CSP: signed out, each shows "Sign in with <provider
 * host>" beside the key field, linking to /signin with the page to return to; with the
 * session cookie the gateway sets after a sign-in (minted here from the same token key,
 * HttpOnly and SameSite=Lax as the gateway sets it), "Signed in as <name>", a Sign out
 * button, and the calls listed and decided with no key pasted; a pasted key still decides
 * instead. The tools view takes keys only. Screenshots are written to
 * test-output/catalog-sign-in.png and catalog-sign-in-confirm.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSkip, closeChromium, launchChromium, openPage } from '../helpers/chromium.js';
import { approvalOf, askDeleteByPage, bearer, deleteByPageRetry } from '../helpers/consent.js';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import {
  AGENT_KEY,
  BOB,
  FINANCE_KEY,
  CAROL,
  sessionCookieValue,
  startSignInWorld,
  type Person,
  type SignInWorld,
} from '../helpers/page-session.js';
import { skipBecause } from '../helpers/skip-reason.js';
import { startGatewayOnUpstream } from '../helpers/upstream-fixtures.js';
import { okJson, type Upstream } from '../helpers/upstream.js';
import { BROWSER_SESSION_COOKIE } from '../../src/access/sign-in/sign-in-types.js';

const SKIP_BROWSER = skipBecause(...browserSkip('catalog-sign-in.test.ts'));
const OUTPUT_DIR = fileURLToPath(new URL('../../test-output/', import.meta.url));

describe('the sign-in views over HTTP', () => {
  let world: SignInWorld;
  let gw: TestGateway;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    world = await startSignInWorld();
    ({ gw, stop } = await startGatewayOnUpstream((u) => world.spec(u), {
      answer: okJson,
      env: world.env,
    }));
  }, 60_000);

  afterAll(async () => {
    await stop?.();
    await world?.close();
  });

  it('names the provider host in the page, and no person: who is signed in is asked by the script', async () => {
    const host = new URL(world.provider.issuer).host;
    for (const path of ['/approvals', '/confirm/x', '/']) {
      const res = await fetch(`${gw.url}${path}`, {
        headers: { cookie: `${BROWSER_SESSION_COOKIE}=${await sessionCookieValue(BOB)}` },
      });
      const text = await res.text();
      expect(res.status).toBe(200);
      expect(text).toContain(`data-sign-in="${host}"`);
      expect(text).toContain(`Sign in with ${host}`);
      expect(text).not.toContain('Bob');
    }
  });
});

describe.skipIf(SKIP_BROWSER)('the sign-in views in headless Chromium', () => {
  let world: SignInWorld;
  let gw: TestGateway;
  let upstream: Upstream;
  let stop: () => Promise<void>;
  let context: BrowserContext;
  let profile: string;

  beforeAll(async () => {
    world = await startSignInWorld();
    ({ gw, upstream, stop } = await startGatewayOnUpstream((u) => world.spec(u), {
      answer: okJson,
      env: world.env,
    }));
    ({ context, profile } = await launchChromium());
  }, 90_000);

  afterAll(async () => {
    await closeChromium(context, profile);
    await stop?.();
    await world?.close();
  });

  /** The browser signed in as `person`: the cookie as the gateway's callback sets it. */
  async function signIn(person: Person): Promise<void> {
    await context.clearCookies();
    await context.addCookies([
      {
        name: BROWSER_SESSION_COOKIE,
        value: await sessionCookieValue(person),
        url: gw.url,
        httpOnly: true,
        sameSite: 'Lax',
      },
    ]);
  }

  async function askRefund(amount: number) {
    const asked = await postJson(
      `${gw.url}/api/create_refund`,
      { payment: 9, amount },
      bearer(AGENT_KEY),
    );
    expect(asked.status).toBe(202);
    return approvalOf(asked.json);
  }

  it('shows the sign-in link when signed out, and once signed in lists and decides without a pasted key', async () => {
    upstream.requests.length = 0;
    await context.clearCookies();
    const asked = await askRefund(800);
    const host = new URL(world.provider.issuer).host;
    const { page, problems } = await openPage(context, asked.url);
    const link = page.locator('#sign-in');
    const status = page.locator('#approvals-status');
    await expect.poll(() => link.isVisible()).toBe(true);
    expect(await link.textContent()).toBe(`Sign in with ${host}`);
    expect(await link.getAttribute('href')).toBe(
      `/signin?return=${encodeURIComponent(new URL(asked.url).pathname)}`,
    );
    expect(await page.locator('#bearer-token').isVisible()).toBe(true);
    expect(await page.locator('#session-signed-in').isHidden()).toBe(true);
    expect(await status.textContent()).toMatch(
      /^Approvals appear once you sign in or enter a token/,
    );
    expect(await page.locator('article.approval').count()).toBe(0);
    await page.close();

    // Back from the provider: the session cookie is set, and the same page lists as Bob.
    await signIn(BOB);
    const signedIn = await openPage(context, asked.url);
    const p = signedIn.page;
    await expect.poll(() => p.locator('#session-signed-in').isVisible()).toBe(true);
    expect(await p.locator('#session-name').textContent()).toBe('Bob Approver');
    expect(await p.locator('#sign-out').isVisible()).toBe(true);
    expect(await p.locator('#sign-in').isHidden()).toBe(true);
    expect(await p.inputValue('#bearer-token')).toBe('');
    // The script never sees the HttpOnly cookie.
    expect(await p.evaluate('document.cookie')).toBe('');
    const card = p.locator(`article[id="approval-${asked.id}"]`);
    await expect.poll(() => card.count()).toBe(1);
    expect(await card.locator('.approval-message').textContent()).toBe(asked.message);
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await p.screenshot({ path: join(OUTPUT_DIR, 'catalog-sign-in.png'), fullPage: true });

    await card.getByRole('button', { name: 'Approve' }).click();
    await expect
      .poll(() => p.locator('#approval-outcome').textContent())
      .toMatch(/^Approved create_refund: /);
    // Decided by the person the cookie names (the audit line), with no key in the page.
    expect(gw.logs()).toContain('"decidedBy":"sub:bob"');
    const ran = await postJson(
      `${gw.url}/api/create_refund`,
      { payment: 9, amount: 800 },
      bearer(AGENT_KEY),
    );
    expect(ran.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
    expect(signedIn.problems).toEqual([]);
    expect(problems).toEqual([]);
    await p.close();
  });

  it('signs in through the provider from the page link, comes back to the same page, and signs out', async () => {
    await context.clearCookies();
    await world.provider.allowRedirect(`${gw.url}/callback`);
    world.provider.signInAs('carol');
    const { page, problems } = await openPage(context, `${gw.url}/approvals`);
    const link = page.locator('#sign-in');
    await expect.poll(() => link.isVisible()).toBe(true);
    // The gateway, the provider (its login and consent answered for Carol), the callback, and back.
    await Promise.all([page.waitForURL(`${gw.url}/approvals`, { timeout: 30_000 }), link.click()]);
    await expect.poll(() => page.locator('#session-signed-in').isVisible()).toBe(true);
    expect(await page.locator('#session-name').textContent()).toBe('Carol');
    expect(world.provider.seen).toContain('/token');
    // The session cookie is the gateway's, HttpOnly: the page's script cannot read it.
    const cookies = await context.cookies(gw.url);
    const session = cookies.find((c) => c.name === BROWSER_SESSION_COOKIE);
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Lax');

    await page.locator('#sign-out').click();
    await expect.poll(() => link.isVisible()).toBe(true);
    expect(await page.locator('#session-signed-in').isHidden()).toBe(true);
    expect((await context.cookies(gw.url)).some((c) => c.name === BROWSER_SESSION_COOKIE)).toBe(
      false,
    );
    expect(problems).toEqual([]);
    await page.close();
  });

  it('lets a pasted key decide over the session: signed in, her own call has no button, and an approver key pasted gets them', async () => {
    // Carol asked with an access token of hers; signed in as Carol, it is her own call.
    const token = await world.jwks.sign({ claims: { sub: 'carol', scope: 'payments:write' } });
    const asked = await postJson(
      `${gw.url}/api/create_refund`,
      { payment: 9, amount: 810 },
      { authorization: `Bearer ${token}` },
    );
    const approval = approvalOf(asked.json);
    await signIn(CAROL);
    const { page, problems } = await openPage(context, approval.url);
    const card = page.locator(`article[id="approval-${approval.id}"]`);
    await expect.poll(() => card.locator('.own').count()).toBe(1);
    expect(await card.locator('button').count()).toBe(0);
    // The finance key, pasted, is who decides now: it may.
    await page.fill('#bearer-token', FINANCE_KEY);
    await page.getByRole('button', { name: 'Show approvals' }).click();
    await expect.poll(() => card.locator('button').count()).toBe(2);
    expect(await card.locator('.own').count()).toBe(0);
    // Forgotten, the session lists again: Carol's own call.
    await page.getByRole('button', { name: 'Forget' }).click();
    await expect.poll(() => card.locator('.own').count()).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('lets the signed-in person confirm a call of theirs on the confirm page', async () => {
    upstream.requests.length = 0;
    const token = await world.jwks.sign({ claims: { sub: 'carol', scope: 'payments:write' } });
    const asked = await askDeleteByPage(gw.url, token, 52);
    await signIn(CAROL);
    const { page, problems } = await openPage(context, String(asked.params.url));
    await expect.poll(() => page.locator('#session-name').textContent()).toBe('Carol');
    await expect
      .poll(() => page.locator('#confirmation-message').textContent())
      .toBe('Delete payment 52? This cannot be undone.');
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({
      path: join(OUTPUT_DIR, 'catalog-sign-in-confirm.png'),
      fullPage: true,
    });
    await page.getByRole('button', { name: 'Confirm', exact: true }).click();
    await expect
      .poll(() => page.locator('#confirmation-outcome').textContent())
      .toMatch(/^Confirmed\./);
    expect(upstream.requests).toHaveLength(0);
    const ran = await deleteByPageRetry(gw.url, token, 52, asked.requestState);
    expect(ran.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows someone else signed in that the confirmation is not theirs', async () => {
    const token = await world.jwks.sign({ claims: { sub: 'carol', scope: 'payments:write' } });
    const asked = await askDeleteByPage(gw.url, token, 53);
    await signIn(BOB);
    const { page, problems } = await openPage(context, String(asked.params.url));
    await expect
      .poll(() => page.locator('#confirmation-status').textContent())
      .toMatch(/CONFIRMATION_OTHER_CALLER/);
    expect(await page.locator('#confirmation-card button').count()).toBe(0);
    expect(problems).toEqual([
      expect.stringMatching(/^HTTP 403 .*\/api\/confirmations\//),
      expect.stringMatching(/^console: Failed to load resource: .*status of 403/),
    ]);
    await page.close();
  });

  it('keeps the tools view on keys alone: no sign-in there', async () => {
    await signIn(BOB);
    const { page, problems } = await openPage(context, `${gw.url}/`);
    expect(await page.locator('#session').isHidden()).toBe(true);
    expect(await page.locator('#tools-status').textContent()).toMatch(/once a token is entered/);
    expect(problems).toEqual([]);
    await page.close();
  });
});
