/**
 * The `approve` decisions of the consent step: someone else, holding the grant's scope,
 * approves. The approval on record for this caller, tool and arguments decides first (run,
 * still waiting, declined, lapsed); without one a new request is parked, which counts as
 * the call against the grant's rate limit (its approved run is not counted again).
 */
import { engineError } from '../error-catalogue.js';
import type { Approval } from './approvals.js';
import { NEXT, type ConsentCall, type ConsentGrant, type Decided } from './consent-call.js';
import { approvalDetails, fillMessage, pendingLimitError } from './consent-message.js';
import { sealState } from './consent-state.js';
import type { ConsentVerdict } from './consent-types.js';

type Approve = NonNullable<ConsentGrant['approve']>;

/**
 * An approval waiting. A request that can send its user to a page, and whose retry
 * echoes a state, is sent to the approval's, unless this is already the retry of that (then it is APPROVAL_REQUIRED,
 * not asked in a loop); the retry of a confirmation (grants with both) is asked too: the
 * approval is new.
 */
function waiting(call: ConsentCall, a: Approval, created: boolean): ConsentVerdict {
  call.audit(created ? 'approval_requested' : 'approval_pending', { approvalId: a.id });
  if (call.questions?.canVisit && call.questions.echoesState && !call.approveRetry) {
    const sealed = sealState(call, 'approve', Math.max(1, a.expiresAt - call.grant.now()));
    return {
      ask: {
        kind: 'visit',
        message: `${a.message} (needs approval by someone holding ${a.scope}; open the link to see it)`,
        approvalId: a.id,
        state: sealed.requestState,
      },
    };
  }
  const url = call.approvalUrl(a.id);
  return {
    error: engineError(
      'APPROVAL_REQUIRED',
      `this call waits for approval by someone holding the scope ${a.scope} (until ${new Date(a.expiresAt).toISOString()}); it is at ${url}. Repeat the same call once it is approved.`,
      { details: approvalDetails(a, url) },
    ),
  };
}

/** The approval on record decides; NEXT when there is none and this retries no approval. */
export async function approvalOnRecord(call: ConsentCall): Promise<Decided> {
  const { services, tool } = call.grant;
  const held = await services.approvals.consume(call.caller.id, tool, call.digest);
  switch (held.kind) {
    case 'run':
      call.audit('approval_run', {
        approvalId: held.approval.id,
        ...(held.approval.decidedBy !== undefined && { decidedBy: held.approval.decidedBy }),
      });
      return undefined;
    case 'pending':
      return waiting(call, held.approval, false);
    case 'declined':
      return call.refuse(
        'approval_declined',
        engineError(
          'APPROVAL_DECLINED',
          `the approval of this call was declined${held.approval.decidedBy ? ` by ${held.approval.decidedBy}` : ''}; nothing was sent`,
        ),
        { approvalId: held.approval.id },
      );
    case 'expired':
      return call.refuse(
        'approval_expired',
        engineError(
          'APPROVAL_EXPIRED',
          'the approval of this call lapsed before it was used; nothing was sent. Make the call again to ask anew',
        ),
      );
    case 'none':
      // The state outlived its approval (run, or gone): a replay must not park a new
      // request each time it is sent, filling the approvers' queue.
      if (call.approveRetry)
        return call.invalid(
          'spent',
          'the approval this requestState belongs to has been used or is gone; make the call again, without the state, to ask anew',
        );
      return NEXT;
  }
}

/** Parks a new request for approval, once the rate limit allows the call. */
export async function requestApproval(
  call: ConsentCall,
  approve: Approve,
): Promise<ConsentVerdict> {
  const { services, tool, now, rateLimit } = call.grant;
  // Parking counts as the call (the approved run is not counted again): a caller
  // cannot park more than its rate limit allows, and nothing is parked when refused.
  const limited = await rateLimit?.(call.caller);
  if (limited) return { error: limited };
  const t = now();
  const asked = await services.approvals.request({
    callerId: call.caller.id,
    tool,
    argumentsDigest: call.digest,
    message: fillMessage(approve.message, call.input),
    scope: approve.scope,
    requestedAt: t,
    expiresAt: t + approve.expiresMs,
  });
  if (asked.kind === 'pending') return waiting(call, asked.approval, asked.created);
  if (asked.kind === 'full') return { error: pendingLimitError(tool, asked, now()) };
  // Decided between our consume and this request (another replica): consume once more.
  const again = await services.approvals.consume(call.caller.id, tool, call.digest);
  if (again.kind === 'run') {
    call.audit('approval_run', { approvalId: again.approval.id });
    return undefined;
  }
  return call.refuse(
    again.kind === 'declined' ? 'approval_declined' : 'approval_expired',
    again.kind === 'declined'
      ? engineError('APPROVAL_DECLINED', 'the approval of this call was declined; nothing was sent')
      : engineError(
          'APPROVAL_EXPIRED',
          'the approval of this call lapsed before it was used; nothing was sent',
        ),
  );
}
