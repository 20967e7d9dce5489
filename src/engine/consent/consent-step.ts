/**
 * The consent step of the pipeline (docs/spec-language.md, "Confirmation and approval"):
 * a grant's `confirm` and `approve`, run on the validated arguments after every guard and
 * before the backend, so a call that is refused, declined or still waiting sends nothing.
 * It counts the grant's rate limit itself: on a confirmed call, and on parking an
 * approval (whose run is then not counted again), never on a question or a wait. It never
 * waits for a person: it answers at once (ask, refuse, park) and the caller's retry
 * carries the call on, on any replica.
 *
 * Order, when a grant has both: an approval already on record for this caller, tool and
 * arguments decides first (its confirmation was given when it was requested); otherwise
 * a caller that can be asked confirms, and then the approval is requested. Each decision
 * is a file of its own: confirm-decision.ts, approve-decision.ts; the sealed states they
 * hand out and take back are consent-state.ts's.
 */
import type { ToolDescriptor } from '../../compiler/descriptor.js';
import { engineError } from '../error-catalogue.js';
import type { RateCheck } from '../rate-limit/rate-limiter.js';
import { approvalOnRecord, requestApproval } from './approve-decision.js';
import { NEXT, consentCall, type ConsentCall, type ConsentGrant } from './consent-call.js';
import { openState, stateRefused } from './consent-state.js';
import type { ConsentCheck, ConsentServices, ConsentVerdict } from './consent-types.js';
import { confirmation } from './confirm-decision.js';

/** The step for one grant, or undefined when it has neither `confirm` nor `approve`. */
export function prepareConsent(
  d: ToolDescriptor,
  services: ConsentServices,
  rateLimit?: RateCheck,
): ConsentCheck | undefined {
  if (!d.consent) return undefined;
  const grant: ConsentGrant = {
    tool: d.name,
    confirm: d.consent.confirm,
    approve: d.consent.approve,
    services,
    now: services.now ?? Date.now,
    rateLimit,
  };

  return async function consentStep(input, scope) {
    try {
      return await decide(consentCall(grant, input, scope));
    } catch {
      // A store that cannot answer (Redis down): nothing is granted by default.
      return {
        error: engineError(
          'CONSENT_UNAVAILABLE',
          'the store of confirmations and approvals does not answer; nothing was sent. Retry shortly',
          { retryAfter: 1 },
        ),
      };
    }
  };
}

async function decide(call: ConsentCall): Promise<ConsentVerdict> {
  const { confirm, approve, rateLimit } = call.grant;
  // The retry of an approval's link: its state opens before the store is asked.
  if (call.approveRetry) {
    const opened = openState(call, 'approve');
    if (!opened.ok) return stateRefused(call, opened.reason);
  }
  if (approve) {
    const held = await approvalOnRecord(call);
    if (held !== NEXT) return held;
  }
  if (confirm && !call.approveRetry) {
    const confirmed = await confirmation(call, confirm);
    if (confirmed !== NEXT) return confirmed;
  }
  if (approve) return requestApproval(call, approve);
  // A confirmed call (no `approve`) counts now: questions and declines are free.
  const limited = await rateLimit?.(call.caller);
  return limited && { error: limited };
}
