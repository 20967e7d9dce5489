/**
 * The browser session as the pages' credential (issue 42): with `sign-in` in the spec, the
 * approvals and confirmations APIs take the sealed session cookie the gateway sets after a
 * sign-in, as the person `sub:<sub>` with the session's scopes (the caller an access token
 * of the same person is), deciding only from the gateway's own Origin; an Authorization
 * header always decides instead; any other route takes no cookie; a spec without
 * `sign-in` never reads one. The cookie is minted here exactly as the gateway seals it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postJson, startGateway } from '../helpers/gateway.js';
import { startGatewayOnUpstream, useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';
import { okJson, startUpstream } from '../helpers/upstream.js';
import {
  approvalOf,
  askDeleteByPage,
  bearer,
  consentSpec,
  CONFIRM_KEY as CONSENT_CONFIRM_KEY,
  deleteByPageRetry,
  KEYS_ENV,
  type ApprovalJson,
} from '../helpers/consent.js';
import {
  AGENT_KEY,
  ALLOWED_ORIGIN,
  BOB,
  CAROL,
  FINANCE_KEY,
  gatewaySealer,
  sessionCookie,
  sessionCookieValue,
  startSignInWorld,
  type SignInWorld,
} from '../helpers/page-session.js';
import { BROWSER_SESSION_COOKIE } from '../../src/access/sign-in/sign-in-types.js';
import type { TestGateway } from '../helpers/gateway.js';
import type { Upstream } from '../helpers/upstream.js';

let world: SignInWorld;

beforeAll(async () => {
  world = await startSignInWorld();
}, 30_000);

afterAll(async () => {
  await world?.close();
});

interface Refusal {
  error: { code: string; message: string };
}

const codeOf = (json: unknown): string => (json as Refusal).error.code;

async function getWith(url: string, headers: Record<string, string>) {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, json: (await res.json()) as unknown };
}

describe('the pages APIs with the browser session of a sign-in spec', () => {
  let gw: TestGateway;
  let upstream: Upstream;

  let stop: () => Promise<void>;

  // After the provider and the token issuer: the spec names them.
  beforeAll(async () => {
    ({ gw, upstream, stop } = await startGatewayOnUpstream((u) => world.spec(u), {
      answer: okJson,
      env: world.env,
    }));
  }, 60_000);

  afterAll(async () => {
    await stop?.();
  });

  beforeEach(() => {
    upstream.requests.length = 0;
  });

  const own = (): Record<string, string> => ({ origin: gw.url });

  /** A refund asked by the agent's key: parked, and the approval it names. */
  async function askRefund(amount: number, key = AGENT_KEY) {
    const asked = await postJson(
      `${gw.url}/api/create_refund`,
      { payment: 7, amount },
      bearer(key),
    );
    expect(asked.status).toBe(202);
    return approvalOf(asked.json);
  }

  const listed = async (headers: Record<string, string>): Promise<ApprovalJson[]> => {
    const r = await getWith(`${gw.url}/api/approvals`, headers);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    return (r.json as { approvals: ApprovalJson[] }).approvals;
  };

  it('lists and decides approvals with the session cookie, as the person sub:<sub>', async () => {
    const asked = await askRefund(300);
    const cookie = await sessionCookie(BOB);
    const seen = await listed({ cookie });
    const mine = seen.find((a) => a.id === asked.id);
    expect(mine).toMatchObject({ tool: 'create_refund', own: false, status: 'pending' });

    const decided = await postJson(
      `${gw.url}/api/approvals/${asked.id}`,
      { decision: 'approve' },
      { cookie, ...own() },
    );
    expect(decided.status, decided.text).toBe(200);
    expect((decided.json as { approval: ApprovalJson }).approval.decided_by).toBe('sub:bob');
    expect(gw.logs()).toContain('"decidedBy":"sub:bob"');

    // The agent's repeat runs the call, once.
    const ran = await postJson(
      `${gw.url}/api/create_refund`,
      { payment: 7, amount: 300 },
      bearer(AGENT_KEY),
    );
    expect(ran.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
  });

  it('shows a person only the approvals of the scopes the session holds', async () => {
    const asked = await askRefund(310);
    const noScope = await sessionCookie({ sub: 'dan', scopes: ['reports:read'] });
    expect((await listed({ cookie: noScope })).some((a) => a.id === asked.id)).toBe(false);
    const refused = await postJson(
      `${gw.url}/api/approvals/${asked.id}`,
      { decision: 'approve' },
      { cookie: noScope, ...own() },
    );
    expect(refused.status).toBe(403);
    expect(codeOf(refused.json)).toBe('INSUFFICIENT_SCOPE');
  });

  it('never lets the requester approve its own call by cookie: the token and the session are the same caller', async () => {
    // Carol asks with an access token of hers (sub carol), then opens the page signed in.
    const token = await world.jwks.sign({
      claims: { sub: 'carol', scope: 'payments:write payments:approve' },
    });
    const asked = await askRefund(320, token);
    expect(
      (await listed({ authorization: `Bearer ${token}` })).find((a) => a.id === asked.id),
    ).toMatchObject({ requested_by: 'sub:carol', own: true });
    const cookie = await sessionCookie(CAROL);
    expect((await listed({ cookie })).find((a) => a.id === asked.id)?.own).toBe(true);
    const refused = await postJson(
      `${gw.url}/api/approvals/${asked.id}`,
      { decision: 'approve' },
      { cookie, ...own() },
    );
    expect(refused.status).toBe(403);
    expect(codeOf(refused.json)).toBe('APPROVAL_OWN_CALL');
    // Someone else still may.
    const bob = await postJson(
      `${gw.url}/api/approvals/${asked.id}`,
      { decision: 'decline' },
      { cookie: await sessionCookie(BOB), ...own() },
    );
    expect(bob.status).toBe(200);
  });

  it('refuses a decision by cookie whose Origin is missing, foreign or merely allowed, and decides nothing', async () => {
    const asked = await askRefund(330);
    const cookie = await sessionCookie(BOB);
    const url = `${gw.url}/api/approvals/${asked.id}`;

    const missing = await postJson(url, { decision: 'approve' }, { cookie });
    expect(missing.status).toBe(403);
    expect(codeOf(missing.json)).toBe('FORBIDDEN_ORIGIN');
    expect((missing.json as Refusal).error.message).toContain('Origin header');
    expect((missing.json as Refusal).error.message).toContain(gw.url);

    // A page of another site: refused before any route by the request guard.
    const foreign = await postJson(
      url,
      { decision: 'approve' },
      { cookie, origin: 'http://evil.example' },
    );
    expect(foreign.status).toBe(403);
    expect(codeOf(foreign.json)).toBe('FORBIDDEN_ORIGIN');

    // An origin `allow-origin` lets call the gateway is still not the gateway's own page.
    const allowed = await postJson(
      url,
      { decision: 'approve' },
      { cookie, origin: ALLOWED_ORIGIN },
    );
    expect(allowed.status).toBe(403);
    expect(codeOf(allowed.json)).toBe('FORBIDDEN_ORIGIN');
    expect((allowed.json as Refusal).error.message).toContain(ALLOWED_ORIGIN);

    // The same origin spelled with a path is not the origin either.
    const pathed = await postJson(
      url,
      { decision: 'approve' },
      { cookie, origin: `${gw.url}/approvals` },
    );
    expect(pathed.status).toBe(403);

    // None of them decided it: it is still pending for the approver.
    expect((await listed({ cookie })).find((a) => a.id === asked.id)?.status).toBe('pending');
    // A key needs no Origin: no page can make a browser send another site's header.
    const byKey = await postJson(url, { decision: 'decline' }, bearer(FINANCE_KEY));
    expect(byKey.status).toBe(200);
  });

  it('refuses a tampered, expired or foreign-sealed cookie as if there were none (401)', async () => {
    const asked = await askRefund(340);
    const good = await sessionCookieValue(BOB);
    const flip = good.slice(0, 20) + (good[20] === 'A' ? 'B' : 'A') + good.slice(21);
    const nineHoursAgo = Date.now() - 9 * 60 * 60_000;
    const expired = await sessionCookieValue(BOB, () => nineHoursAgo);
    // A value the gateway sealed for another purpose never opens as a session.
    const otherPurpose = (await gatewaySealer()).seal(
      'provider-state',
      { sub: 'bob', scopes: ['payments:approve'] },
      60_000,
    );
    for (const [what, value] of [
      ['tampered', flip],
      ['expired', expired],
      ['another purpose', otherPurpose],
      ['not a seal', 'bob'],
    ] as const) {
      const cookie = `${BROWSER_SESSION_COOKIE}=${value}`;
      const list = await getWith(`${gw.url}/api/approvals`, { cookie });
      expect(list.status, what).toBe(401);
      expect(codeOf(list.json), what).toBe('UNAUTHENTICATED');
      expect(list.headers.get('www-authenticate'), what).toMatch(/^Bearer/);
      const post = await postJson(
        `${gw.url}/api/approvals/${asked.id}`,
        { decision: 'approve' },
        { cookie, ...own() },
      );
      expect(post.status, what).toBe(401);
      const session = await getWith(`${gw.url}/api/session`, { cookie });
      expect(session.json, what).toEqual({ signed_in: false });
    }
    // The cookie under another name (a __Host- one on plain http) is not read either.
    const renamed = await getWith(`${gw.url}/api/approvals`, {
      cookie: `__Host-${BROWSER_SESSION_COOKIE}=${good}`,
    });
    expect(renamed.status).toBe(401);
    expect((await listed({ cookie: `${BROWSER_SESSION_COOKIE}=${good}` })).length).toBeGreaterThan(
      0,
    );
  });

  it('lets an Authorization header decide whenever one is sent: an API key acts as itself, a bad one is refused', async () => {
    const asked = await askRefund(350);
    const cookie = await sessionCookie(BOB);
    const byKey = await postJson(
      `${gw.url}/api/approvals/${asked.id}`,
      { decision: 'approve' },
      { cookie, ...own(), ...bearer(FINANCE_KEY) },
    );
    expect(byKey.status).toBe(200);
    expect((byKey.json as { approval: ApprovalJson }).approval.decided_by).toBe(
      'api-key:FINANCE_KEY#1',
    );

    const other = await askRefund(351);
    const badKey = await postJson(
      `${gw.url}/api/approvals/${other.id}`,
      { decision: 'approve' },
      { cookie, ...own(), authorization: 'Bearer not-a-key-of-this-gateway' },
    );
    expect(badKey.status).toBe(401);
    expect(codeOf(badKey.json)).toBe('UNAUTHENTICATED');
    // A key caller with no cookie and no Origin, as before sign-in existed.
    expect((await listed(bearer(FINANCE_KEY))).some((a) => a.id === other.id)).toBe(true);
  });

  it('takes no cookie on the tools: listing and calling need a header', async () => {
    const cookie = await sessionCookie(CAROL);
    const list = await getWith(`${gw.url}/api`, { cookie });
    expect(list.status).toBe(401);
    const call = await postJson(
      `${gw.url}/api/create_refund`,
      { payment: 7, amount: 360 },
      { cookie, ...own() },
    );
    expect(call.status).toBe(401);
    const mcp = await postJson(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { cookie, ...own(), accept: 'application/json, text/event-stream' },
    );
    expect(mcp.status).toBe(401);
    expect(upstream.requests).toHaveLength(0);
  });

  it('lets the person whose call waits confirm it by cookie, and no one else', async () => {
    const token = await world.jwks.sign({ claims: { sub: 'carol', scope: 'payments:write' } });
    const asked = await askDeleteByPage(gw.url, token, 41);
    const url = `${gw.url}/api/confirmations/${encodeURIComponent(asked.id)}`;

    const other = await getWith(url, { cookie: await sessionCookie(BOB) });
    expect(other.status).toBe(403);
    expect(codeOf(other.json)).toBe('CONFIRMATION_OTHER_CALLER');

    const cookie = await sessionCookie(CAROL);
    const shown = await getWith(url, { cookie });
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({
      confirmation: { tool: 'delete_payment', status: 'pending' },
    });
    const noOrigin = await postJson(url, { decision: 'confirm' }, { cookie });
    expect(noOrigin.status).toBe(403);
    expect(codeOf(noOrigin.json)).toBe('FORBIDDEN_ORIGIN');

    const answered = await postJson(url, { decision: 'confirm' }, { cookie, ...own() });
    expect(answered.status, answered.text).toBe(200);
    expect(answered.json).toMatchObject({ confirmation: { status: 'confirmed' } });
    expect(upstream.requests).toHaveLength(0);
    // The client's retry runs the call, once.
    const ran = await deleteByPageRetry(gw.url, token, 41, asked.requestState);
    expect(ran.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.path).toBe('/payments/41');
  });

  it('says who the browser is signed in as at /api/session, from the cookie alone', async () => {
    const r = await getWith(`${gw.url}/api/session`, { cookie: await sessionCookie(CAROL) });
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.json).toEqual({
      signed_in: true,
      sub: 'carol',
      name: 'Carol',
      scopes: ['payments:approve', 'payments:write'],
    });
    const nameless = await getWith(`${gw.url}/api/session`, {
      cookie: await sessionCookie({ sub: 'erin', scopes: [] }),
    });
    expect(nameless.json).toEqual({ signed_in: true, sub: 'erin', name: 'erin', scopes: [] });
    expect((await getWith(`${gw.url}/api/session`, {})).json).toEqual({ signed_in: false });
    // A key is no session: the pages know their pasted key already.
    expect((await getWith(`${gw.url}/api/session`, bearer(FINANCE_KEY))).json).toEqual({
      signed_in: false,
    });
  });

  it('never writes the session cookie to the logs', async () => {
    const value = await sessionCookieValue(BOB);
    await getWith(`${gw.url}/api/approvals`, { cookie: `${BROWSER_SESSION_COOKIE}=${value}` });
    await postJson(
      `${gw.url}/api/approvals/nope`,
      { decision: 'approve' },
      { cookie: `${BROWSER_SESSION_COOKIE}=${value}` },
    );
    expect(gw.logs()).not.toContain(value);
  });
});

describe('a spec without sign-in', () => {
  let gw: TestGateway;

  useGatewayOnUpstream(
    (u) => consentSpec(u),
    { answer: okJson, env: { ...KEYS_ENV, CONFIRM_KEY: CONSENT_CONFIRM_KEY } },
    (s) => ({ gw } = s),
  );

  it('never reads the session cookie, and serves no /api/session', async () => {
    const cookie = await sessionCookie(BOB);
    const list = await getWith(`${gw.url}/api/approvals`, { cookie });
    expect(list.status).toBe(401);
    expect(codeOf(list.json)).toBe('UNAUTHENTICATED');
    const session = await getWith(`${gw.url}/api/session`, { cookie });
    expect(session.status).toBe(404);
    expect(codeOf(session.json)).toBe('NOT_FOUND');
  });
});

describe('a reload that takes sign-in out of the spec', () => {
  it('stops reading the cookie while the spec served has no sign-in, and reads it again once it has', async () => {
    const upstream = await startUpstream(okJson);
    const dir = mkdtempSync(join(tmpdir(), 'beaver-page-session-'));
    const file = join(dir, 'gateway.mcp.kdl');
    const withSignIn = world.spec(upstream.url);
    // The same spec without its sign-in node (and its two lines of children).
    const without = withSignIn.replace(/\n {4}sign-in [^\n]*\n(?: {8}[^\n]*\n)* {4}\}/, '');
    expect(without).not.toContain('sign-in issuer');
    expect(without).not.toContain('grant-scopes');
    writeFileSync(file, withSignIn);
    const gw = await startGateway(withSignIn, { env: world.env, specFile: file });
    try {
      const cookie = await sessionCookie(BOB);
      const approvals = () => getWith(`${gw.url}/api/approvals`, { cookie });
      expect((await approvals()).status).toBe(200);

      writeFileSync(file, without);
      await expect(gw.reload()).resolves.toMatchObject({ ok: true });
      expect((await approvals()).status).toBe(401);
      expect((await getWith(`${gw.url}/api/session`, { cookie })).status).toBe(404);

      writeFileSync(file, withSignIn);
      await expect(gw.reload()).resolves.toMatchObject({ ok: true });
      expect((await approvals()).status).toBe(200);
    } finally {
      await gw.close();
      await upstream.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
