/**
 * `auth client-credentials` (RFC 6749 §4.4): the gateway calls the upstream as itself,
 * with a token it obtains from `token-url` with its client id and secret (HTTP Basic),
 * asking for `scope` and `audience` when the spec names them. One token for every caller:
 * one cache key. The sequence per token: one POST to the token endpoint (single flight),
 * then every call sends `Bearer <token>` from memory until 30 s before it expires; after
 * an upstream 401 the token is dropped, obtained once more, and the call retried once.
 */
import type { TokenAuth } from '../../../../compiler/descriptor.js';
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

const KEY = 'gateway';

export function clientCredentialsIdentity(
  auth: TokenAuth & { readonly kind: 'client-credentials' },
  ctx: IdentityContext,
  options: TokenIdentityOptions = {},
): UpstreamIdentity {
  const endpoint = openTokenEndpoint(auth, ctx, options);
  const { client, requestOptions } = endpoint;
  const now = options.now ?? Date.now;
  const cache = new TokenCache<string>(now);
  const form: Record<string, string> = { grant_type: 'client_credentials' };
  if (auth.scope !== undefined) form.scope = auth.scope;
  if (auth.audience !== undefined) form.audience = auth.audience;

  const fetch = async (): Promise<Fetched> => {
    const asked = now();
    const answer = await requestToken(auth.tokenUrl, form, client, requestOptions);
    if (!answer.ok) return tokenRefusal(ctx.upstream, answer);
    return obtained(answer.token, usableUntil(asked, answer.token.expiresInS));
  };

  return {
    kind: 'client-credentials',
    forCall: (): IdentityOutcome | Promise<IdentityOutcome> => cache.get(KEY, fetch),
    afterUnauthorized: (_call: CallContext, used: CallCredential) => cache.renew(KEY, used, fetch),
    secrets: () => endpoint.secrets,
    sentValues: () => endpoint.sent,
    close: () => {
      cache.clear();
      return endpoint.close();
    },
  };
}
