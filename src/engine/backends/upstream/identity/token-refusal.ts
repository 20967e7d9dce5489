/**
 * A token request that failed, as the call's answer: UPSTREAM_AUTH naming the upstream and
 * what failed at its token endpoint — its origin and, of a refusal, only the OAuth `error`
 * code (token-request.ts keeps nothing else of the answer). Nothing was sent upstream.
 */
import { engineError } from '../../../error-catalogue.js';
import type { TokenResult } from '../../../../outbound/token-request.js';
import type { IdentityOutcome } from '../identity-types.js';

export function tokenRefusal(
  upstream: string,
  failure: TokenResult & { readonly ok: false },
): IdentityOutcome & { readonly ok: false } {
  return Object.freeze({
    ok: false as const,
    error: engineError(
      'UPSTREAM_AUTH',
      `the credential for upstream ${upstream} could not be obtained: ${failure.reason}; nothing was sent to the upstream`,
      failure.oauthError !== undefined ? { details: { oauth_error: failure.oauthError } } : {},
    ),
  });
}
