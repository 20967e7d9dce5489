/**
 * The browser's trip to the identity provider and back (spec-language.md, "Sign-in for MCP
 * clients"). Leaving: a sealed ProviderState as
 * `state`, with a fresh nonce and PKCE verifier inside and the value of a round-trip cookie,
 * so the callback is answered only in the browser that left (a state copied into another
 * browser, the login CSRF of RFC 6749 section 10.12, finds no cookie to match). Back at
 * `/callback`: the ID token checked, then either a single-use code for the MCP client
 * (purpose `authorize`) or the browser signed in to the gateway's pages (purpose `page`).
 */
import { sealProviderRefresh, sealProviderToken } from './provider-token.js';
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignInServices } from './sign-in-services.js';
import { randomToken } from './identity-provider.js';
import {
  browserSessionOf,
  cookieHeader,
  cookieName,
  readCookie,
  startBrowserSession,
} from './browser-session.js';
import { clientDigest } from './client-registration.js';
import { redirectWith, refusal, sendErrorPage } from './oauth-answers.js';
import {
  ROUND_TRIP_COOKIE,
  SIGN_IN_PATHS,
  SIGN_IN_TTL_MS,
  type AuthorizationRequest,
  type ProviderState,
  type SealedBrowserSession,
  type SealedCode,
  type SignedInPerson,
} from './sign-in-types.js';

/** At most this many clients are remembered as consented in one browser session. */
const MAX_CONSENTED = 10;
const BINDING = /^[A-Za-z0-9_-]{43}$/;

/** The browser's round-trip binding: the cookie it holds, or a new one set on `reply`. */
export function browserBinding(req: FastifyRequest, reply: FastifyReply, base: string): string {
  const held = readCookie(req, cookieName(ROUND_TRIP_COOKIE, base));
  const binding = held !== undefined && BINDING.test(held) ? held : randomToken();
  void reply.header(
    'set-cookie',
    cookieHeader(ROUND_TRIP_COOKIE, binding, base, Math.floor(SIGN_IN_TTL_MS.providerState / 1000)),
  );
  return binding;
}

/** True when this browser holds the round-trip cookie `binding` names. */
export function sameBrowser(req: FastifyRequest, base: string, binding: string): boolean {
  const held = readCookie(req, cookieName(ROUND_TRIP_COOKIE, base));
  if (held === undefined || held.length !== binding.length) return false;
  return timingSafeEqual(Buffer.from(held), Buffer.from(binding));
}

/** Sends the browser to the provider. */
export function goToProvider(
  reply: FastifyReply,
  services: SignInServices,
  base: string,
  binding: string,
  why:
    { purpose: 'authorize'; request: AuthorizationRequest } | { purpose: 'page'; returnTo: string },
): FastifyReply {
  const nonce = randomToken();
  const providerVerifier = randomToken();
  const state: ProviderState = {
    purpose: why.purpose,
    ...(why.purpose === 'authorize' ? { request: why.request } : { returnTo: why.returnTo }),
    nonce,
    providerVerifier,
    browserBinding: binding,
  };
  const sealed = services.sealer.seal('provider-state', state, SIGN_IN_TTL_MS.providerState);
  return reply.redirect(
    services.provider.authorizationUrl({
      state: sealed,
      nonce,
      verifier: providerVerifier,
      redirectUri: `${base}${SIGN_IN_PATHS.callback}`,
    }),
    302,
  );
}

/** A `return` path of the gateway's own: one leading `/`, no scheme, host or backslash. */
export function samePath(text: unknown): string | undefined {
  if (typeof text !== 'string' || text.length > 1024) return undefined;
  if (!/^\/(?![/\\])/.test(text) || /[\\\p{Cc}]/u.test(text)) return undefined;
  return text;
}

/** The session after a sign-in: the same person's consents kept, `clientId` added. */
function sessionAfter(
  earlier: SealedBrowserSession | undefined,
  person: SignedInPerson,
  clientId?: string,
): SealedBrowserSession {
  const kept = earlier?.sub === person.sub ? earlier.consented : [];
  const added = clientId === undefined ? [] : [clientDigest(clientId)];
  const consented = [...new Set([...added, ...kept])].slice(0, MAX_CONSENTED);
  return {
    sub: person.sub,
    scopes: person.scopes,
    ...(person.displayName !== undefined && { displayName: person.displayName }),
    consented,
  };
}

/** `/callback`: the provider's answer for the browser that left. */
export async function answerCallback(
  req: FastifyRequest<{ Querystring: Record<string, unknown> }>,
  reply: FastifyReply,
  services: SignInServices,
  base: string,
): Promise<FastifyReply> {
  const q = req.query;
  const opened = services.sealer.open<ProviderState>('provider-state', q.state);
  if (!opened.ok) {
    services.audit({ event: 'refused', error: 'invalid_request', reason: 'callback state' });
    return sendErrorPage(
      reply,
      400,
      refusal(
        'invalid_request',
        opened.reason === 'expired'
          ? 'the sign-in took too long: start again from your client'
          : 'state is not a sign-in this gateway started',
      ),
    );
  }
  const state = opened.value;
  if (!sameBrowser(req, base, state.browserBinding)) {
    services.audit({
      event: 'refused',
      error: 'invalid_request',
      reason: 'callback in another browser',
    });
    return sendErrorPage(
      reply,
      400,
      refusal('invalid_request', 'state belongs to a sign-in started in another browser'),
    );
  }
  // RFC 9207: a provider that names itself must be the one we sent the browser to.
  if (q.iss !== undefined && q.iss !== services.provider.endpoints.issuer) {
    services.audit({ event: 'refused', error: 'invalid_request', reason: 'callback iss mismatch' });
    return sendErrorPage(
      reply,
      400,
      refusal('invalid_request', 'iss is not the identity provider this sign-in went to'),
    );
  }
  const request = state.request;
  const toClient = (description: string): FastifyReply => {
    services.audit({
      event: 'refused',
      error: 'access_denied',
      reason: description,
      ...(request && { clientId: request.clientId }),
    });
    if (state.purpose === 'authorize' && request)
      return reply.redirect(
        redirectWith(request.redirectUri, {
          error: 'access_denied',
          error_description: description,
          state: request.state,
          iss: base,
        }),
        302,
      );
    return sendErrorPage(reply, 403, refusal('access_denied', description));
  };
  if (q.error !== undefined || typeof q.code !== 'string')
    return toClient('the identity provider did not sign the person in');
  const signed = await services.provider.signIn({
    code: q.code,
    verifier: state.providerVerifier,
    nonce: state.nonce,
    redirectUri: `${base}${SIGN_IN_PATHS.callback}`,
  });
  if (!signed.ok) {
    req.log.warn({ reason: signed.reason }, 'sign-in at the identity provider failed');
    return toClient('the sign-in at the identity provider could not be completed');
  }
  const person = signed.person;
  const earlier = browserSessionOf(req, services.sealer, base);
  if (state.purpose === 'page' || !request) {
    startBrowserSession(reply, services.sealer, sessionAfter(earlier, person), base);
    services.audit({ event: 'page_sign_in', sub: person.sub });
    return reply.redirect(samePath(state.returnTo) ?? '/', 302);
  }
  // Granted: what was asked and is held; all that is held when nothing was asked.
  const held = new Set(person.scopes);
  const scopes = request.scopes.length > 0 ? request.scopes.filter((s) => held.has(s)) : [...held];
  const code: SealedCode = {
    jti: randomToken(),
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    resource: request.resource,
    scopes,
    sub: person.sub,
    ...(person.providerToken && { pt: sealProviderToken(services.sealer, person.providerToken) }),
    // Sealed for as long as the gateway's refresh tokens of this sign-in can live.
    ...(person.providerRefresh && {
      prt: sealProviderRefresh(
        services.sealer,
        person.providerRefresh,
        Date.now() + SIGN_IN_TTL_MS.refreshToken,
      ),
    }),
  };
  const sealedCode = services.sealer.seal(
    'authorization-code',
    code,
    SIGN_IN_TTL_MS.authorizationCode,
  );
  startBrowserSession(
    reply,
    services.sealer,
    sessionAfter(earlier, person, request.clientId),
    base,
  );
  services.audit({ event: 'sign_in', sub: person.sub, clientId: request.clientId });
  return reply.redirect(
    redirectWith(request.redirectUri, { code: sealedCode, state: request.state, iss: base }),
    302,
  );
}
