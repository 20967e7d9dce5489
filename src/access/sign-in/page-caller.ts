/**
 * The browser session as a credential of the gateway's own pages (spec-language.md,
 * "Sign-in for MCP clients"): a request to the approvals and confirmations APIs that
 * carries no Authorization header but the sealed session cookie is the person it names,
 * `sub:<sub>` with the session's scopes, the same caller an access token of that person
 * gives, so "never one's own call" and "only the caller that made it confirms" hold
 * whichever way the person comes.
 *
 * A cookie travels with every request the browser makes to the gateway, a forged one
 * from another site's page included (SameSite=Lax stops most, not a same-site sibling or
 * an old browser). So a request that changes something on the cookie's word must say it
 * comes from the gateway's own page: its Origin equal to the gateway's base URL. A bearer
 * header needs no such rule: no page can make another site's browser send one.
 */
import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../engine/caller.js';
import { engineError, type EngineError } from '../../engine/error-catalogue.js';
import { browserSessionOf } from './browser-session.js';
import type { Sealer } from './sealed.js';
import type { SealedBrowserSession } from './sign-in-types.js';

/** Methods that only read: GET and HEAD (and OPTIONS, never routed to a gated API). */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type PageCaller =
  | { readonly ok: true; readonly caller: Caller }
  | { readonly ok: false; readonly error: EngineError }
  /** No session cookie, or one that does not open (tampered, expired, another key's). */
  | undefined;

export interface PageSessions {
  /** The person this browser signed in as, or undefined. */
  sessionOf(req: FastifyRequest): SealedBrowserSession | undefined;
  /** The caller the session cookie makes of this request, its refusal, or undefined. */
  callerOf(req: FastifyRequest): PageCaller;
}

/** The caller a session names: the id an access token with the same `sub` gives (oauth.ts). */
export function sessionCaller(session: SealedBrowserSession): Caller {
  return Object.freeze({
    id: `sub:${session.sub}`,
    scopes: new Set(session.scopes),
    claims: Object.freeze({ sub: session.sub }),
  });
}

/** The origin of the gateway's base URL: a public URL may hold a path the Origin never does. */
function originOf(base: string): string {
  try {
    return new URL(base).origin;
  } catch {
    // A Host header no URL can hold: no Origin equals it.
    return '';
  }
}

export function preparePageSessions(
  sealer: Sealer,
  baseUrl: (req: FastifyRequest) => string,
): PageSessions {
  const sessionOf = (req: FastifyRequest): SealedBrowserSession | undefined => {
    const session = browserSessionOf(req, sealer, baseUrl(req));
    // A seal of ours always holds these; checked so a change of shape cannot mint `sub:undefined`.
    if (!session || typeof session.sub !== 'string' || session.sub === '') return undefined;
    if (!Array.isArray(session.scopes)) return undefined;
    return session;
  };
  return {
    sessionOf,
    callerOf(req) {
      const session = sessionOf(req);
      if (!session) return undefined;
      if (!READS.has(req.method)) {
        const origin = req.headers.origin;
        const base = originOf(baseUrl(req));
        if (typeof origin !== 'string' || base === '' || origin.toLowerCase() !== base)
          return {
            ok: false,
            error: engineError(
              'FORBIDDEN_ORIGIN',
              origin === undefined
                ? `a request signed in by the session cookie that changes something must carry an Origin header equal to ${base}`
                : `Origin ${JSON.stringify(origin)} is not this gateway's (${base}): a request signed in by the session cookie that changes something must come from the gateway's own page`,
            ),
          };
      }
      return { ok: true, caller: sessionCaller(session) };
    },
  };
}
