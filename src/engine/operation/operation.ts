/**
 * Prepared operations: a descriptor plus everything compiled from it at boot
 * (validator, matchers, backend plan). Functions live here, never on descriptors.
 */
import type { Shaper } from '../../envelope/shape.js';
import type { CredentialKind, ToolDescriptor } from '../../compiler/descriptor.js';
import type { PreparedBackend } from '../backends/kind.js';
import type { ConsentCheck } from '../consent/consent-types.js';
import type { ClaimBinder } from '../guards/claims.js';
import type { MixedSegment } from '../guards/metachar.js';
import type { ExclusiveCheck } from '../guards/exclusive.js';
import type { ExactNumberCheck } from '../guards/exact-numbers.js';
import type { NullStripper } from '../guards/optional-nulls.js';
import type { RateCheck } from '../rate-limit/rate-limiter.js';
import type { RestrictMatcher } from '../guards/restrict-matchers.js';
import type { Validator } from '../guards/validate.js';

export interface Operation {
  readonly name: string;
  readonly descriptor: ToolDescriptor;
  /** String path arguments, for the metachar gate. */
  readonly pathArgs: readonly string[];
  /** The template's segments that mix literal text and parameters (`{id}.json`). */
  readonly pathSegments: readonly MixedSegment[];
  /** Removes `null` given for optional fields: it means "not given". */
  readonly stripNulls?: NullStripper;
  /** The grant's `rate-limit`, counted per caller after the scope check. */
  readonly rateLimit?: RateCheck;
  readonly restrict?: RestrictMatcher;
  readonly validate: Validator;
  /** Typed numbers a double cannot hold are refused (raw keeps the caller's digits). */
  readonly exactNumbers: ExactNumberCheck;
  /** The grant declares a name such as `toString`: arguments are copied without prototypes. */
  readonly nullPrototype: boolean;
  readonly exclusive?: ExclusiveCheck;
  /** Binds the `from-claim=` fields from the caller's verified token. */
  readonly bindClaims?: ClaimBinder;
  /** Path arguments bound from claims: they pass the metachar gate after binding. */
  readonly claimPathArgs: readonly string[];
  /** The grant's `confirm` / `approve`, run after the guards and before the rate limit. */
  readonly consent?: ConsentCheck;
  readonly backend: PreparedBackend;
  /** What its upstream call is made as, for the audit line and the span (the identity chain). */
  readonly credential: CredentialKind;
  /** The grant's pick/omit, applied to the backend's result before the envelope. */
  readonly shape?: Shaper;
}
