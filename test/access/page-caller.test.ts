/**
 * The session cookie as a caller (src/access/sign-in/page-caller.ts), as pure logic over a
 * request's method and headers: behind https the cookie is read only under its `__Host-`
 * name, and the Origin a decision needs is the public base, compared as an origin.
 */
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { preparePageSessions } from '../../src/access/sign-in/page-caller.js';
import { BROWSER_SESSION_COOKIE } from '../../src/access/sign-in/sign-in-types.js';
import { BOB, gatewaySealer, sessionCookieValue } from '../helpers/page-session.js';

function request(method: string, headers: Record<string, string>): FastifyRequest {
  return { method, headers } as unknown as FastifyRequest;
}

describe('the session cookie as the caller of a page API', () => {
  it('behind https reads only the __Host- cookie, and takes a decision only from the public origin', async () => {
    const pages = preparePageSessions(await gatewaySealer(), () => 'https://gw.example.com');
    const value = await sessionCookieValue(BOB);
    const hostCookie = `__Host-${BROWSER_SESSION_COOKIE}=${value}`;

    const plain = pages.callerOf(request('GET', { cookie: `${BROWSER_SESSION_COOKIE}=${value}` }));
    expect(plain).toBeUndefined();

    const read = pages.callerOf(request('GET', { cookie: `other=1; ${hostCookie}` }));
    expect(read).toMatchObject({ ok: true, caller: { id: 'sub:bob' } });
    const caller = (read as { caller: { scopes: ReadonlySet<string> } }).caller;
    expect([...caller.scopes]).toEqual(['payments:approve']);

    // An origin is case-insensitive in scheme and host.
    for (const origin of ['https://gw.example.com', 'HTTPS://GW.EXAMPLE.COM'])
      expect(pages.callerOf(request('POST', { cookie: hostCookie, origin }))?.ok, origin).toBe(
        true,
      );
    for (const origin of [
      'http://gw.example.com',
      'https://gw.example.com:8443',
      'https://gw.example.com.evil.example',
      'null',
    ]) {
      const refused = pages.callerOf(request('POST', { cookie: hostCookie, origin }));
      expect(refused, origin).toMatchObject({ ok: false, error: { code: 'FORBIDDEN_ORIGIN' } });
    }
    expect(pages.callerOf(request('DELETE', { cookie: hostCookie }))).toMatchObject({
      ok: false,
      error: { code: 'FORBIDDEN_ORIGIN' },
    });
    // The person it names, for GET /api/session.
    expect(pages.sessionOf(request('GET', { cookie: hostCookie }))).toMatchObject({
      sub: 'bob',
      displayName: 'Bob Approver',
    });
  });

  it('compares with a public base given with a trailing slash as its origin', async () => {
    const pages = preparePageSessions(await gatewaySealer(), () => 'http://127.0.0.1:8080/');
    const cookie = `${BROWSER_SESSION_COOKIE}=${await sessionCookieValue(BOB)}`;
    expect(pages.callerOf(request('POST', { cookie, origin: 'http://127.0.0.1:8080' }))?.ok).toBe(
      true,
    );
  });
});
