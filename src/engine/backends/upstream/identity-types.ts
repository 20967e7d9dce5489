/**
 * The types of upstream-identity.ts, in a file of their own so that the runtime of a
 * credential kind, which upstream-identity.ts loads with `import()`, can name them without
 * importing its loader back (test/engine/import-cycles.test.ts counts type imports too).
 * upstream-identity.ts re-exports them: import them from either.
 */
import type { CredentialKind } from '../../../compiler/descriptor.js';
import type { Env } from '../../../process/env.js';
import type { CallContext } from '../../call-context.js';
import type { EngineError } from '../../error-catalogue.js';
import type { Redactor } from '../../redact.js';
import type { TokenEgress } from '../../../outbound/token-endpoint-dispatcher.js';
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
  /**
   * The upstream's way out, which its token endpoint shares (token-endpoint-dispatcher.ts):
   * its `proxy` and its `ca-file`; the environment's proxy variables when absent.
   */
  readonly egress?: TokenEgress;
}
