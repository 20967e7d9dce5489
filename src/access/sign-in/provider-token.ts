/**
 * The identity provider's token from a person's sign-in, kept for `auth exchange` without
 * storing it (issue 43): sealed once at the callback as `provider-tokens` (sealed.ts,
 * AES-256-GCM under the key from `token-key-env`, opening until the provider token's own
 * expiry), and that sealed text carried on in the authorization code, in the claim `pt` of
 * every access token issued from it and in the refresh token. Stateless, so every replica
 * with the same key can open it; encrypted, so the MCP client holding the gateway's token
 * cannot read the provider's. A refresh carries it on and never extends it: once the
 * provider token has expired, a refresh of the gateway's token renews it at the provider
 * with the provider's refresh token, when the sign-in gave one (sealed as
 * `provider-refresh`, in the gateway's refresh token only, never in an access token);
 * without one, the person signs in again to be exchanged for.
 *
 * It is opened lazily, once per verified access token, only when an `auth exchange`
 * upstream asks for it (`Caller.subjectToken`).
 */
import type { SubjectToken } from '../../engine/caller.js';
import type { Sealer } from './sealed.js';
import type { ProviderToken, SealedProviderToken } from './sign-in-types.js';

interface Kept {
  readonly t: string;
  readonly y: 'a' | 'i';
}

export function sealProviderToken(sealer: Sealer, token: ProviderToken): SealedProviderToken {
  const kept: Kept = {
    t: token.token,
    y: token.type === 'urn:ietf:params:oauth:token-type:id_token' ? 'i' : 'a',
  };
  return sealer.sealUntil('provider-tokens', kept, token.expiresAt);
}

/** `Caller.subjectToken` for a gateway token carrying `sealed`: opened on first use, then kept. */
export function providerTokenOpener(
  sealer: Sealer,
  sealed: SealedProviderToken,
): () => SubjectToken | undefined {
  let opened: SubjectToken | null | undefined;
  return () => {
    if (opened === undefined) {
      const o = sealer.open<Kept>('provider-tokens', sealed);
      opened =
        o.ok && typeof o.value.t === 'string'
          ? Object.freeze({
              token: o.value.t,
              type:
                o.value.y === 'i'
                  ? 'urn:ietf:params:oauth:token-type:id_token'
                  : 'urn:ietf:params:oauth:token-type:access_token',
            })
          : null;
    }
    return opened ?? undefined;
  };
}

/** The provider's refresh token sealed until `until` (the gateway refresh token's own end). */
export function sealProviderRefresh(sealer: Sealer, refreshToken: string, until: number): string {
  return sealer.sealUntil('provider-refresh', { r: refreshToken }, until);
}

export function openProviderRefresh(sealer: Sealer, sealed: string): string | undefined {
  const o = sealer.open<{ r?: unknown }>('provider-refresh', sealed);
  return o.ok && typeof o.value.r === 'string' ? o.value.r : undefined;
}

/** Whether the sealed provider token stops opening before `when` (or no longer opens). */
export function providerTokenEndsBefore(
  sealer: Sealer,
  sealed: SealedProviderToken,
  when: number,
): boolean {
  const o = sealer.open<Kept>('provider-tokens', sealed);
  return !o.ok || o.expiresAt < when;
}
