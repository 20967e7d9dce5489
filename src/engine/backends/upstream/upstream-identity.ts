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
import type { CredentialKind, UpstreamAuth } from '../../../compiler/descriptor.js';
import { credentialKind } from '../../../compiler/descriptor.js';
import type { Env } from '../../../process/env.js';
import type { CallContext } from '../../call-context.js';
import type { EngineError } from '../../error-catalogue.js';
import type { Redactor } from '../../redact.js';
import { resolveCredential, type Credential } from './credentials.js';
import type { ConnectionServices } from '../../../connections/connection-services.js';

/** What one call sends: headers (lower-case names) and query pairs, plus how to hide it. */
export interface CallCredential {
  readonly headers: readonly (readonly [string, string])[];
  readonly query: readonly (readonly [string, string])[];
  /**
   * Every spelling of a token obtained at run time, for what this call returns; absent
   * for a static credential, which the gateway's one redactor knows from start-up.
   */
  readonly redact?: Redactor;
}

export type IdentityOutcome =
  | { readonly ok: true; readonly credential: CallCredential }
  | { readonly ok: false; readonly error: EngineError };

export interface UpstreamIdentity {
  /** What audit lines and spans name the upstream call as. */
  readonly kind: CredentialKind;
  /**
   * The credential for this call's caller (`ctx.caller`). Static kinds settle at once;
   * a token kind may wait on its token endpoint (single flight, bounded by its deadline).
   */
  forCall(ctx: CallContext): IdentityOutcome | Promise<IdentityOutcome>;
  /**
   * The upstream answered 401 to `used`: the cached token is dropped and, where a fresh
   * one may help, obtained again for one retry of the call. Undefined: no retry.
   */
  afterUnauthorized?(ctx: CallContext, used: CallCredential): Promise<IdentityOutcome | undefined>;
  /** Secrets known at start (a static credential, a client secret), for the one redactor. */
  secrets(): readonly string[];
  /** Whole values sent with them (`Bearer <t>`), whose base64 is redacted too. */
  sentValues(): readonly string[];
  close?(): Promise<void>;
}

/** What an identity needs of the process: its environment, and the process's shared services. */
export interface IdentityContext {
  readonly env: Env;
  /** Where this upstream is, for messages: its name, or its base URL for the default one. */
  readonly upstream: string;
  /** With an `oauth-provider`: the process's connected accounts (`auth user`). */
  readonly connections?: ConnectionServices;
}

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
  if (auth.kind === 'user') {
    if (!ctx.connections)
      throw new Error(`auth user at ${ctx.upstream}: the process opened no connected accounts`);
    const { userIdentity } = await import('../../../connections/user-identity.js');
    return userIdentity(auth, ctx.connections, ctx.upstream);
  }
  throw new Error(`auth ${auth.kind} has no runtime yet`);
}
