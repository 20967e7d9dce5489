/**
 * On whose behalf an upstream is called (spec-language.md, "On whose behalf (upstream
 * identity)"): the one interface every credential kind answers through, so that the HTTP
 * kind and the MCP kind ask the same question per call — "what do I send for this
 * caller?" — and never learn how a token is obtained.
 *
 * A static credential answers synchronously with the same object on every call (no
 * promise on the hot path); a token kind answers from its cache, or after one request to a
 * token endpoint. A refusal is a value: IDENTITY_UNAVAILABLE, AUTHORIZATION_REQUIRED or
 * UPSTREAM_AUTH, and nothing is sent upstream.
 */
import type { UpstreamAuth } from '../../../compiler/descriptor.js';
import { credentialKind } from '../../../compiler/descriptor.js';
import { resolveCredential, type Credential } from './credentials.js';
import type { IdentityContext, IdentityOutcome, UpstreamIdentity } from './identity-types.js';

export type {
  CallCredential,
  IdentityContext,
  IdentityOutcome,
  UpstreamIdentity,
} from './identity-types.js';

/** The static credential as an identity: one settled answer, shared by every call. */
export function staticIdentity(
  credential: Credential,
  auth: UpstreamAuth | undefined,
): UpstreamIdentity {
  const answer: IdentityOutcome = Object.freeze({
    ok: true,
    credential: Object.freeze({ headers: credential.headers, query: credential.query }),
  });
  return {
    kind: credentialKind(auth),
    forCall: () => answer,
    secrets: () => credential.secrets,
    sentValues: () => credential.sent,
  };
}

/** An upstream's identity, as its `auth` declares it. */
export async function openIdentity(
  auth: UpstreamAuth | undefined,
  ctx: IdentityContext,
): Promise<UpstreamIdentity> {
  if (!auth || !('tokenUrl' in auth || auth.kind === 'user'))
    return staticIdentity(resolveCredential(auth, ctx.env), auth);
  // The token kinds (issue 43): their runtimes load only for a spec that declares them.
  switch (auth.kind) {
    case 'client-credentials': {
      const { clientCredentialsIdentity } = await import('./identity/client-credentials.js');
      return clientCredentialsIdentity({ ...auth, kind: auth.kind }, ctx);
    }
    case 'exchange': {
      const { exchangeIdentity } = await import('./identity/exchange.js');
      return exchangeIdentity({ ...auth, kind: auth.kind }, ctx);
    }
    case 'user': {
      if (!ctx.connections)
        throw new Error(`auth user at ${ctx.upstream}: the process opened no connected accounts`);
      const { userIdentity } = await import('../../../connections/user-identity.js');
      return userIdentity(auth, ctx.connections, ctx.upstream);
    }
  }
}
