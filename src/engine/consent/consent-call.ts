/**
 * One call through the consent step (consent-step.ts): the grant it is for, the digest of
 * its arguments, what its retry carries, and the audit line and refusal that each decision
 * (confirm-decision.ts, approve-decision.ts) writes.
 */
import type { ConsentDescriptor } from '../../compiler/descriptor.js';
import type { CallArguments } from '../call-arguments.js';
import type { RequestScope } from '../call-context.js';
import type { Caller } from '../caller.js';
import { engineError, type EngineError } from '../error-catalogue.js';
import type { RateCheck } from '../rate-limit/rate-limiter.js';
import { argumentsDigest } from './arguments-digest.js';
import type {
  ConsentAuditEvent,
  ConsentAuditLine,
  ConsentServices,
  ConsentVerdict,
} from './consent-types.js';
import type { Answers, Questions, Unaskable } from './questions.js';

/** A grant's consent, fixed when it is prepared. */
export interface ConsentGrant {
  readonly tool: string;
  readonly confirm: ConsentDescriptor['confirm'];
  readonly approve: ConsentDescriptor['approve'];
  readonly services: ConsentServices;
  readonly now: () => number;
  readonly rateLimit: RateCheck | undefined;
}

/** What a decision answers: the step's verdict, or NEXT when the next decision takes the call. */
export const NEXT: unique symbol = Symbol('the next decision');
export type Decided = ConsentVerdict | typeof NEXT;

export interface ConsentCall {
  readonly grant: ConsentGrant;
  readonly input: CallArguments;
  readonly caller: Caller;
  /** What the request can be asked; undefined where its surface cannot ask at all. */
  readonly questions: Questions | undefined;
  /** How the surface says it cannot ask. */
  readonly unaskable: Unaskable;
  /** Over the text that goes upstream, not the doubles: `1e400` is not `null` (arguments-digest.ts). */
  readonly digest: string;
  /** The retry's answers, when it sent them as an object. */
  readonly answers: Answers | undefined;
  /** The request echoes a state or answers: it is the retry of a question. */
  readonly isRetry: boolean;
  /** A retry that answers the approval's URL request, or (grants with `confirm`) the confirmation. */
  readonly approveRetry: boolean;
  /**
   * A `confirm` grant without `approve`, and a request that can send its user to a page
   * but not ask it in place: the user confirms on the confirmation page
   * (confirm-page-decision.ts). With `approve` the approval takes such a call, as before.
   */
  readonly confirmsOnPage: boolean;
  /** Where the approval `id` is seen and decided. */
  approvalUrl(id: string): string;
  audit(event: ConsentAuditEvent, extra?: Partial<Omit<ConsentAuditLine, 'event'>>): void;
  refuse(
    event: ConsentAuditEvent,
    error: EngineError,
    extra?: Partial<ConsentAuditLine>,
  ): ConsentVerdict;
  /** CONFIRMATION_INVALID: the retry's state or answers are not ones this call can take. */
  invalid(reason: string, message: string): ConsentVerdict;
}

/** What a request whose surface names no wording of its own is told. */
const CANNOT_ASK: Unaskable = {
  reason: 'this request cannot ask its user',
  remedy: 'from a client that can ask its user',
};

export function consentCall(
  grant: ConsentGrant,
  input: CallArguments,
  scope: RequestScope,
): ConsentCall {
  const { tool, confirm, approve, services } = grant;
  const { caller, questions } = scope;
  const digest = argumentsDigest(input.value, input.texts);
  const answers = questions?.answers;
  const isRetry = questions?.isRetry ?? false;
  const audit: ConsentCall['audit'] = (event, extra = {}) =>
    services.audit?.({ event, tool, caller: caller.id, argumentsDigest: digest, ...extra });
  const refuse: ConsentCall['refuse'] = (event, error, extra) => {
    audit(event, extra);
    return { error };
  };
  return {
    grant,
    input,
    caller,
    questions,
    unaskable: scope.unaskable ?? CANNOT_ASK,
    digest,
    answers,
    isRetry,
    approveRetry:
      isRetry && approve !== undefined && (confirm === undefined || answers?.visited === true),
    confirmsOnPage:
      confirm !== undefined &&
      approve === undefined &&
      questions?.canVisit === true &&
      !questions.canConfirm,
    approvalUrl: scope.approvalUrl,
    audit,
    refuse,
    invalid: (reason, message) =>
      refuse('confirmation_invalid', engineError('CONFIRMATION_INVALID', message), { reason }),
  };
}
