/**
 * The `confirm` decision of the consent step: the caller's own user confirms. A request
 * that can ask is asked (the surface renders the question); its retry's answer is read
 * once, against the state it echoes; a request that cannot ask is refused, unless the
 * grant also has `approve`, which then takes the call (someone else says yes).
 */
import { engineError } from '../error-catalogue.js';
import { NEXT, type ConsentCall, type ConsentGrant, type Decided } from './consent-call.js';
import { fillMessage } from './consent-message.js';
import { openState, sealState, stateRefused } from './consent-state.js';
import { confirmOnPage } from './confirm-page-decision.js';

type Confirm = NonNullable<ConsentGrant['confirm']>;

/** What else lets a confirm-only call run, for a caller that cannot be asked. */
const OR_APPROVE = 'or once the spec gives this grant `approve` (someone else then says yes)';

/**
 * NEXT once the user said yes, or when `approve` takes a call that cannot be asked;
 * undefined (run) when the user said yes on the confirmation page.
 */
export async function confirmation(call: ConsentCall, confirm: Confirm): Promise<Decided> {
  if (call.confirmsOnPage) return confirmOnPage(call, confirm);
  if (call.isRetry) return confirmAnswer(call);
  if (call.questions?.canConfirm) return askToConfirm(call, confirm);
  if (!call.grant.approve) return cannotAsk(call);
  // Without a way to ask, `approve` takes over: someone else says yes.
  return NEXT;
}

/** The retry's answer, read once: its state is spent before the answer is looked at. */
async function confirmAnswer(call: ConsentCall): Promise<Decided> {
  if (call.questions!.state === undefined)
    return call.invalid(
      'missing',
      'the retry carries no requestState; echo the one the gateway sent',
    );
  const opened = openState(call, 'confirm');
  if (!opened.ok) return stateRefused(call, opened.reason);
  // Spent before the answer is read: one state, one answer, whatever it says.
  if (!(await call.grant.services.spent.markSpent(opened.state.nonce, opened.state.expiresAt)))
    return call.invalid('spent', 'the requestState has already been used; make the call again');
  const answer = call.answers?.confirm;
  if (answer === 'dismissed')
    return call.refuse(
      'confirmation_cancelled',
      engineError(
        'CONFIRMATION_CANCELLED',
        'the user dismissed the confirmation; nothing was sent',
      ),
    );
  if (answer === 'no')
    return call.refuse(
      'confirmation_declined',
      engineError('CONFIRMATION_DECLINED', 'the user declined; nothing was sent'),
    );
  if (answer !== 'yes')
    return call.invalid(
      'malformed',
      'the retry needs inputResponses.confirm, the answer to the confirmation: {"action":"accept","content":{"confirm":true}}, or decline or cancel',
    );
  call.audit('confirmation_accepted');
  return NEXT;
}

/** The question that asks the user to confirm, with the state its retry echoes. */
function askToConfirm(call: ConsentCall, confirm: Confirm): Decided {
  const sealed = sealState(call, 'confirm');
  call.audit('confirmation_requested');
  return {
    ask: {
      kind: 'confirm',
      message: fillMessage(confirm.message, call.input),
      state: sealed.requestState,
      argumentsDigest: call.digest,
    },
  };
}

/**
 * A confirm-only call from a request that cannot ask its user: it says how it could run,
 * in the surface's words (the request scope's `unaskable`).
 */
function cannotAsk(call: ConsentCall): Decided {
  const { reason, remedy } = call.unaskable;
  return call.refuse(
    'confirmation_unavailable',
    engineError(
      'CONFIRMATION_UNAVAILABLE',
      `this tool asks its user to confirm, and ${reason}, so nothing was sent. It runs ${remedy} (the user is then asked), ${OR_APPROVE}`,
    ),
  );
}
