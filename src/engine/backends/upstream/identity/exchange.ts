/**
 * `auth exchange` (RFC 8693): the upstream is called as the caller, with a token the
 * token endpoint issues in exchange for the caller's own (`ctx.caller.subjectToken()`:
 * its inbound OAuth token, or the provider's token kept from its sign-in), narrowed to
 * the spec's `audience` and `scope`. With `grant="on-behalf-of"`, the same through
 * Microsoft Entra ID's on-behalf-of flow, which is not RFC 8693: the caller's token goes
 * as the `assertion` of a JWT bearer grant with `requested_token_use=on_behalf_of`, and
 * the API is named by `scope`. Everything else (cache, expiry, 401 renewal) is the same.
 *
 * The cache key is the SHA-256 of the subject token and its type — not the caller's id:
 * two callers can only share an exchanged token by presenting the same subject token, and
 * a caller whose id collides with another's (or whose token was replaced) never gets a
 * token obtained with someone else's. Each upstream has its own identity, so its own
 * cache: a token exchanged for one audience is never sent to another upstream.
 *
 * An exchanged token is used until the earlier of its own expiry and the subject token's
 * (`exp`, when the subject token is a readable JWT), less 30 s.
 */
import { createHash } from 'node:crypto';
import type { TokenAuth } from '../../../../compiler/descriptor.js';
import type { SubjectToken } from '../../../caller.js';
import { engineError } from '../../../error-catalogue.js';
import { requestToken } from '../../../../outbound/token-request.js';
import type { CallContext } from '../../../call-context.js';
import type {
  CallCredential,
  IdentityContext,
  IdentityOutcome,
  UpstreamIdentity,
} from '../identity-types.js';
import { openTokenEndpoint, type TokenIdentityOptions } from './token-endpoint.js';
import { TokenCache, type Fetched } from './token-cache.js';
import { obtained, usableUntil } from './token-credential.js';
import { tokenRefusal } from './token-refusal.js';
import { subjectExpiry } from './subject-expiry.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** What is posted for one subject token, by the grant the spec chose. */
function exchangeForm(auth: TokenAuth, subject: SubjectToken): Record<string, string> {
  if (auth.grant === 'on-behalf-of')
    // Microsoft Entra ID: the caller's token is the assertion of a JWT bearer grant, and the
    // API is asked for by scope; the compiler requires scope for this grant.
    return {
      grant_type: JWT_BEARER_GRANT,
      assertion: subject.token,
      requested_token_use: 'on_behalf_of',
      scope: auth.scope ?? '',
    };
  const form: Record<string, string> = {
    grant_type: TOKEN_EXCHANGE_GRANT,
    subject_token: subject.token,
    subject_token_type: subject.type,
    requested_token_type: ACCESS_TOKEN_TYPE,
  };
  if (auth.audience !== undefined) form.audience = auth.audience;
  if (auth.scope !== undefined) form.scope = auth.scope;
  return form;
}

export function exchangeIdentity(
  auth: TokenAuth & { readonly kind: 'exchange' },
  ctx: IdentityContext,
  options: TokenIdentityOptions = {},
): UpstreamIdentity {
  const endpoint = openTokenEndpoint(auth, ctx, options);
  const { client, requestOptions } = endpoint;
  const now = options.now ?? Date.now;
  const cache = new TokenCache<string>(now);
  const unavailable: IdentityOutcome = Object.freeze({
    ok: false,
    error: engineError(
      'IDENTITY_UNAVAILABLE',
      `upstream ${ctx.upstream} is called as the caller (auth exchange), and this caller has no token to exchange (an API key, or no sign-in token); nothing was sent`,
    ),
  });

  const fetcher = (subject: SubjectToken) => async (): Promise<Fetched> => {
    const asked = now();
    const form = exchangeForm(auth, subject);
    const answer = await requestToken(auth.tokenUrl, form, client, requestOptions);
    if (!answer.ok) return tokenRefusal(ctx.upstream, answer);
    const until = usableUntil(asked, answer.token.expiresInS, subjectExpiry(subject.token));
    return obtained(answer.token, until);
  };

  const subjectOf = (call: CallContext): { subject: SubjectToken; key: string } | undefined => {
    const subject = call.caller?.subjectToken?.();
    if (subject === undefined || subject.token === '') return undefined;
    const key = createHash('sha256')
      .update(subject.type)
      .update('\n')
      .update(subject.token)
      .digest('base64url');
    return { subject, key };
  };

  return {
    kind: 'exchange',
    forCall(call) {
      const s = subjectOf(call);
      if (s === undefined) return unavailable;
      return cache.get(s.key, fetcher(s.subject));
    },
    afterUnauthorized(call: CallContext, used: CallCredential) {
      const s = subjectOf(call);
      if (s === undefined) return Promise.resolve(undefined);
      return cache.renew(s.key, used, fetcher(s.subject));
    },
    secrets: () => endpoint.secrets,
    sentValues: () => endpoint.sent,
    close: () => {
      cache.clear();
      return endpoint.close();
    },
  };
}
