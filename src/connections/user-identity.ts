/**
 * `auth user provider="<name>"` as an UpstreamIdentity: each call is made with its
 * caller's own connected account. Per call the caller's token set is read from the store
 * (every replica sees the same one); a token near its expiry is refreshed first (one
 * refresh per caller and provider at a time); a caller with no connection, or whose
 * provider refused the refresh, is answered AUTHORIZATION_REQUIRED with a connect link
 * bound to that caller, and nothing is sent upstream.
 *
 * The credential of a token (its header and its redactor) is kept per caller while the
 * token stays the same: the redactor compiles its patterns once per token, not per call.
 */
import type { UserAuth } from '../compiler/descriptor.js';
import type { CallContext } from '../engine/call-context.js';
import { engineError, type EngineError } from '../engine/error-catalogue.js';
import { makeRedactor } from '../engine/redact.js';
import type {
  CallCredential,
  IdentityOutcome,
  UpstreamIdentity,
} from '../engine/backends/upstream/identity-types.js';
import { connectPageUrl } from './connect-path.js';
import type { ConnectionServices } from './connection-services.js';
import type { TokenSet } from './token-set.js';

/** A token this close to its expiry is refreshed before it is used. */
export const REFRESH_BEFORE_MS = 60_000;
/** Credentials kept per identity; the oldest goes first beyond it. */
const MAX_CACHED = 10_000;

export function userIdentity(
  auth: UserAuth,
  services: ConnectionServices,
  upstream: string,
  now: () => number = Date.now,
): UpstreamIdentity {
  const provider = auth.provider;
  const client = services.providers.get(provider);
  if (!client) throw new Error(`auth user: the oauth-provider "${provider}" is not open`);
  const credentials = new Map<string, { token: string; credential: CallCredential }>();

  const credentialFor = (callerId: string, token: string): IdentityOutcome => {
    const held = credentials.get(callerId);
    if (held && held.token === token) return { ok: true, credential: held.credential };
    const value = `Bearer ${token}`;
    const credential: CallCredential = Object.freeze({
      headers: [['authorization', value]] as const,
      query: [],
      redact: makeRedactor([token], [value]),
    });
    credentials.delete(callerId);
    if (credentials.size >= MAX_CACHED) credentials.delete(credentials.keys().next().value!);
    credentials.set(callerId, { token, credential });
    return { ok: true, credential };
  };

  const required = (ctx: CallContext, callerId: string, why: string): IdentityOutcome => {
    credentials.delete(callerId);
    const link = services.link(callerId, provider);
    const url = ctx.connectUrl
      ? ctx.connectUrl(provider, link.id)
      : connectPageUrl('', provider, link.id);
    return {
      ok: false,
      error: engineError(
        'AUTHORIZATION_REQUIRED',
        `${upstream} is called with your own ${provider} account, and ${why}: open ${url} to connect it, then repeat the call (nothing was sent)`,
        {
          details: {
            authorization: { provider, url, expires_at: new Date(link.expiresAt).toISOString() },
          },
        },
      ),
    };
  };

  const failed = (reason: string): IdentityOutcome => ({
    ok: false,
    error: engineError(
      'UPSTREAM_AUTH',
      `the ${provider} account could not be used for ${upstream}: ${reason} (nothing was sent)`,
    ),
  });

  const read = async (callerId: string): Promise<TokenSet | undefined | EngineError> => {
    try {
      return await services.store.get(provider, callerId);
    } catch (err) {
      return engineError(
        'UPSTREAM_AUTH',
        `the connected ${provider} accounts cannot be read now (${(err as Error).message}); retry shortly`,
      );
    }
  };

  const answer = async (ctx: CallContext, callerId: string): Promise<IdentityOutcome> => {
    const set = await read(callerId);
    if (set === undefined) return required(ctx, callerId, 'you have not connected it');
    if ('code' in set) return { ok: false, error: set };
    const left = set.expiresAt === undefined ? Infinity : set.expiresAt - now();
    if (left > REFRESH_BEFORE_MS) return credentialFor(callerId, set.accessToken);
    if (set.refreshToken === undefined) {
      if (left > 0) return credentialFor(callerId, set.accessToken);
      await services.store.remove(provider, callerId).catch(() => false);
      return required(ctx, callerId, 'its token expired');
    }
    const refreshed = await services.refresh(provider, callerId, set);
    if (refreshed.ok) return credentialFor(callerId, refreshed.set.accessToken);
    if (refreshed.refused) return required(ctx, callerId, `${provider} refused to renew it`);
    // The provider could not be asked: a token still valid serves this call.
    return left > 0 ? credentialFor(callerId, set.accessToken) : failed(refreshed.reason);
  };

  const callerOf = (ctx: CallContext): string | undefined => {
    const id = ctx.caller?.id;
    return id === undefined || id === 'anonymous' ? undefined : id;
  };
  const anonymous: IdentityOutcome = {
    ok: false,
    error: engineError(
      'IDENTITY_UNAVAILABLE',
      `${upstream} is called with each caller's own ${provider} account, and this call has no caller to connect one for`,
    ),
  };

  return {
    kind: `user:${provider}`,
    forCall(ctx) {
      const callerId = callerOf(ctx);
      return callerId === undefined ? anonymous : answer(ctx, callerId);
    },
    async afterUnauthorized(ctx, used) {
      const callerId = callerOf(ctx);
      if (callerId === undefined) return undefined;
      const usedToken = used.headers.find(([k]) => k === 'authorization')?.[1].slice(7);
      const set = await read(callerId);
      if (set === undefined) return required(ctx, callerId, 'you have not connected it');
      if ('code' in set) return { ok: false, error: set };
      // Another call refreshed it meanwhile: the new token gets its one retry.
      if (set.accessToken !== usedToken) return credentialFor(callerId, set.accessToken);
      if (set.refreshToken !== undefined) {
        const refreshed = await services.refresh(provider, callerId, set);
        if (refreshed.ok) return credentialFor(callerId, refreshed.set.accessToken);
        if (!refreshed.refused) return failed(refreshed.reason);
      } else {
        await services.store.remove(provider, callerId).catch(() => false);
        services.audit({ event: 'removed', provider, caller: callerId, reason: 'upstream 401' });
      }
      return required(ctx, callerId, `${provider} no longer accepts it`);
    },
    secrets: () => [client.client.secret],
    sentValues: () => [],
  };
}
