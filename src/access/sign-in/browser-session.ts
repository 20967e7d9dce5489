/**
 * The browser session of the gateway's own pages (approvals, confirm, connect): after a
 * sign-in at the provider the browser holds a sealed cookie naming the person
 * (spec-language.md, "Sign-in for MCP clients"). HttpOnly, so no script reads it;
 * SameSite=Lax, so another site's form or fetch does not carry it on a POST; Secure and
 * `__Host-` prefixed behind https, so no plain-http page or sibling domain can set it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Sealer } from './sealed.js';
import {
  BROWSER_SESSION_COOKIE,
  SIGN_IN_TTL_MS,
  type SealedBrowserSession,
} from './sign-in-types.js';

/** Behind https (the public URL's scheme, else the request's) the cookie is `__Host-` and Secure. */
function secureFor(baseUrl: string): boolean {
  return baseUrl.startsWith('https:');
}

export function cookieName(name: string, baseUrl: string): string {
  return secureFor(baseUrl) ? `__Host-${name}` : name;
}

/** One cookie's value from the request's Cookie header, or undefined. */
export function readCookie(req: FastifyRequest, name: string): string | undefined {
  const header = req.headers.cookie;
  if (typeof header !== 'string' || header.length > 16_384) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A Set-Cookie value with the attributes every cookie of the gateway carries. */
export function cookieHeader(
  name: string,
  value: string,
  baseUrl: string,
  maxAgeSeconds: number,
): string {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (secureFor(baseUrl)) attributes.push('Secure');
  return [`${cookieName(name, baseUrl)}=${value}`, ...attributes].join('; ');
}

/** Signs the browser in: the sealed session cookie, replacing any earlier one. */
export function startBrowserSession(
  reply: FastifyReply,
  sealer: Sealer,
  session: SealedBrowserSession,
  baseUrl: string,
): void {
  const sealed = sealer.seal('browser-session', session, SIGN_IN_TTL_MS.browserSession);
  void reply.header(
    'set-cookie',
    cookieHeader(
      BROWSER_SESSION_COOKIE,
      sealed,
      baseUrl,
      Math.floor(SIGN_IN_TTL_MS.browserSession / 1000),
    ),
  );
}

/** The person this browser signed in as, or undefined (no cookie, tampered, expired). */
export function browserSessionOf(
  req: FastifyRequest,
  sealer: Sealer,
  baseUrl: string,
): SealedBrowserSession | undefined {
  const text = readCookie(req, cookieName(BROWSER_SESSION_COOKIE, baseUrl));
  if (text === undefined) return undefined;
  const opened = sealer.open<SealedBrowserSession>('browser-session', text);
  return opened.ok ? opened.value : undefined;
}

/** Signs the browser out. */
export function endBrowserSession(reply: FastifyReply, baseUrl: string): void {
  void reply.header('set-cookie', cookieHeader(BROWSER_SESSION_COOKIE, '', baseUrl, 0));
}
