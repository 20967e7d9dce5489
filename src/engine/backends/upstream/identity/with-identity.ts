/**
 * One upstream call under an identity, with the one retry a token kind allows: the
 * credential for the caller (nothing is sent when there is none), the call, and — when the
 * upstream answers 401 and the identity can renew — the token dropped, obtained again
 * (single flight), and the call sent once more with it. A second 401 is the answer.
 * What the backend sends and how it reads a 401 stay the backend's (`send`, `unauthorized`).
 */
import type { EngineError } from '../../../error-catalogue.js';
import type { CallContext } from '../../../call-context.js';
import type { CallCredential, UpstreamIdentity } from '../upstream-identity.js';

export type IdentityCall<R> =
  | { readonly ok: true; readonly result: R; readonly credential: CallCredential }
  | { readonly ok: false; readonly error: EngineError };

export async function withIdentity<R>(
  identity: UpstreamIdentity,
  ctx: CallContext,
  send: (credential: CallCredential) => Promise<R>,
  unauthorized: (result: R) => boolean,
): Promise<IdentityCall<R>> {
  const first = await identity.forCall(ctx);
  if (!first.ok) return first;
  const result = await send(first.credential);
  if (!unauthorized(result) || identity.afterUnauthorized === undefined)
    return { ok: true, result, credential: first.credential };
  const again = await identity.afterUnauthorized(ctx, first.credential);
  if (again === undefined) return { ok: true, result, credential: first.credential };
  if (!again.ok) return again;
  return { ok: true, result: await send(again.credential), credential: again.credential };
}
