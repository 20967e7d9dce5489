/**
 * The `confirm` decision for a request that can send its user to a page but not ask it
 * in place (`Questions.canVisit` without `canConfirm`; docs/spec-language.md, "`confirm`
 * on the confirmation page (URL elicitation)"): the call parks a confirmation in the approval store (a
 * record of its own kind), the user says yes or no on the gateway's `/confirm/<id>` page,
 * where only the same caller may answer, and the retry — with the sealed state where the
 * surface echoes one, or the same call made again where it does not — runs once it was
 * given. How the page is put to the client is each surface's own wording.
 *
 * Like an approval, the record decides, so no state is spent: of any number of retries
 * and repeats (any replica), only one consumes a given confirmation, and a replay after it
 * finds nothing. Parking counts as the call against the grant's rate limit; its confirmed
 * run is not counted again.
 */
import { engineError } from '../error-catalogue.js';
import type { Approval } from './approvals.js';
import type { ConsentCall, ConsentGrant, Decided } from './consent-call.js';
import { fillMessage, pendingLimitError } from './consent-message.js';
import { openState, sealState, stateRefused } from './consent-state.js';
import type { ConsentVerdict } from './consent-types.js';

type Confirm = NonNullable<ConsentGrant['confirm']>;

/**
 * How long a confirmation waits on its page: long enough to switch to a browser and
 * sign in with the caller's key, short enough that a forgotten one does not run much
 * later. The wait of the 2025-era form question over SSE is bounded alike.
 */
export const CONFIRMATION_PAGE_TTL_MS = 10 * 60_000;

/** Its page is the way: the question names it, and the surface renders it in its own words. */
function waiting(call: ConsentCall, c: Approval, created: boolean): ConsentVerdict {
  call.audit(created ? 'confirmation_requested' : 'confirmation_pending', {
    confirmationId: c.id,
  });
  // The retry's state lives as long as the confirmation.
  const sealed = sealState(call, 'confirm-page', Math.max(1, c.expiresAt - call.grant.now()));
  return {
    ask: {
      kind: 'confirm-page',
      message: `${c.message} (confirm or decline on the page this link opens; then the call runs)`,
      confirmationId: c.id,
      state: sealed.requestState,
    },
  };
}

const declined = (call: ConsentCall, c: Approval): ConsentVerdict =>
  call.refuse(
    'confirmation_declined',
    engineError(
      'CONFIRMATION_DECLINED',
      'the user declined on the confirmation page; nothing was sent',
    ),
    { confirmationId: c.id },
  );

/** Run (undefined), still waiting (the page again), or refused. */
export async function confirmOnPage(call: ConsentCall, confirm: Confirm): Promise<Decided> {
  const { services, tool } = call.grant;
  if (call.isRetry) {
    // The 2026-07-28 retry: its state first, then what the user told the client.
    const opened = openState(call, 'confirm-page');
    if (!opened.ok) return stateRefused(call, opened.reason);
    const said = call.answers?.confirm;
    if (said === 'no')
      return call.refuse(
        'confirmation_declined',
        engineError(
          'CONFIRMATION_DECLINED',
          'the user declined to open the confirmation page; nothing was sent',
        ),
      );
    if (said === 'dismissed')
      return call.refuse(
        'confirmation_cancelled',
        engineError(
          'CONFIRMATION_CANCELLED',
          'the user dismissed the link to the confirmation page; nothing was sent',
        ),
      );
  }
  const held = await services.approvals.consume(call.caller.id, tool, call.digest, 'confirmation');
  switch (held.kind) {
    case 'run':
      call.audit('confirmation_run', { confirmationId: held.approval.id });
      return undefined;
    case 'pending':
      return waiting(call, held.approval, false);
    case 'declined':
      return declined(call, held.approval);
    case 'expired':
      return call.refuse(
        'confirmation_expired',
        engineError(
          'CONFIRMATION_EXPIRED',
          'the confirmation lapsed before the user answered it on its page; nothing was sent. Make the call again to ask anew',
        ),
      );
    case 'none':
      // The state outlived its confirmation (run, or gone): a replay parks nothing new.
      if (call.isRetry)
        return call.invalid(
          'spent',
          'the confirmation this requestState belongs to has been used or is gone; make the call again, without the state, to ask anew',
        );
      return park(call, confirm);
  }
}

async function park(call: ConsentCall, confirm: Confirm): Promise<ConsentVerdict> {
  const { services, tool, now, rateLimit } = call.grant;
  const limited = await rateLimit?.(call.caller);
  if (limited) return { error: limited };
  const t = now();
  const asked = await services.approvals.request({
    kind: 'confirmation',
    callerId: call.caller.id,
    tool,
    argumentsDigest: call.digest,
    message: fillMessage(confirm.message, call.input),
    scope: '',
    requestedAt: t,
    expiresAt: t + CONFIRMATION_PAGE_TTL_MS,
  });
  if (asked.kind === 'pending') return waiting(call, asked.approval, asked.created);
  if (asked.kind === 'full')
    return { error: pendingLimitError(tool, asked, now(), 'confirmation') };
  // Answered between our consume and this request (another replica): consume once more.
  const again = await services.approvals.consume(call.caller.id, tool, call.digest, 'confirmation');
  if (again.kind === 'run') {
    call.audit('confirmation_run', { confirmationId: again.approval.id });
    return undefined;
  }
  if (again.kind === 'declined') return declined(call, again.approval);
  return call.refuse(
    'confirmation_expired',
    engineError(
      'CONFIRMATION_EXPIRED',
      'the confirmation lapsed before it was used; nothing was sent',
    ),
  );
}
