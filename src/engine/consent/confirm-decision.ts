/**
 * The `confirm` decision of the consent step: the caller's own user confirms, through an
 * MCP elicitation. A request that can ask is asked (form mode); its retry's answer is read
 * once, against the state it echoes; a request that cannot ask is refused, unless the
 * grant also has `approve`, which then takes the call (someone else says yes).
 */
import { engineError } from '../error-catalogue.js';
import {
  NEXT,
  isObject,
  type ConsentCall,
  type ConsentGrant,
  type Decided,
} from './consent-call.js';
import { fillMessage } from './consent-message.js';
import { openState, sealState, stateRefused } from './consent-state.js';

type Confirm = NonNullable<ConsentGrant['confirm']>;

/** What else lets a confirm-only call run, for a caller that cannot be asked. */
const OR_APPROVE = 'or once the spec gives this grant `approve` (someone else then says yes)';

const CONFIRM_SCHEMA = Object.freeze({
  type: 'object',
  properties: { confirm: { type: 'boolean', title: 'Confirm', description: 'Run this call?' } },
  required: ['confirm'],
});

/** NEXT once the user said yes, or when `approve` takes a call that cannot be asked. */
export async function confirmation(call: ConsentCall, confirm: Confirm): Promise<Decided> {
  if (call.isRetry) return confirmAnswer(call);
  if (call.channel?.elicitForm) return askToConfirm(call, confirm);
  if (!call.grant.approve) return cannotAsk(call);
  // Without a way to ask, `approve` takes over: someone else says yes.
  return NEXT;
}

/** The retry's answer, read once: its state is spent before the answer is looked at. */
async function confirmAnswer(call: ConsentCall): Promise<Decided> {
  if (call.channel!.requestState === undefined)
    return call.invalid(
      'missing',
      'the retry carries no requestState; echo the one the gateway sent',
    );
  const opened = openState(call, 'confirm');
  if (!opened.ok) return stateRefused(call, opened.reason);
  // Spent before the answer is read: one state, one answer, whatever it says.
  if (!(await call.grant.services.spent.markSpent(opened.state.nonce, opened.state.expiresAt)))
    return call.invalid('spent', 'the requestState has already been used; make the call again');
  const answer = call.responses?.confirm;
  const action = isObject(answer) ? answer.action : undefined;
  const said = isObject(answer) && isObject(answer.content) ? answer.content.confirm : undefined;
  if (action === 'cancel')
    return call.refuse(
      'confirmation_cancelled',
      engineError(
        'CONFIRMATION_CANCELLED',
        'the user dismissed the confirmation; nothing was sent',
      ),
    );
  if (action === 'decline' || (action === 'accept' && said === false))
    return call.refuse(
      'confirmation_declined',
      engineError('CONFIRMATION_DECLINED', 'the user declined; nothing was sent'),
    );
  if (action !== 'accept' || said !== true)
    return call.invalid(
      'malformed',
      'the retry needs inputResponses.confirm, the answer to the confirmation: {"action":"accept","content":{"confirm":true}}, or decline or cancel',
    );
  call.audit('confirmation_accepted');
  return NEXT;
}

/** The form elicitation that asks the user, with the state its retry echoes. */
function askToConfirm(call: ConsentCall, confirm: Confirm): Decided {
  const sealed = sealState(call, 'confirm');
  call.audit('confirmation_requested');
  return {
    ask: {
      inputRequests: {
        confirm: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: fillMessage(confirm.message, call.input),
            requestedSchema: CONFIRM_SCHEMA,
          },
        },
      },
      requestState: sealed.requestState,
    },
  };
}

/** A confirm-only call from a request that cannot ask its user: it says how it could run. */
function cannotAsk(call: ConsentCall): Decided {
  const { channel } = call;
  return call.refuse(
    'confirmation_unavailable',
    engineError(
      'CONFIRMATION_UNAVAILABLE',
      channel
        ? `this tool asks its user to confirm, and the request does not declare the elicitation capability, so nothing was sent. It runs when made again declaring the elicitation capability (the user is then asked), ${OR_APPROVE}`
        : `this tool asks its user to confirm, and this request cannot be asked (2025-era MCP or REST), so nothing was sent. It runs from an MCP client of protocol 2026-07-28 declaring the elicitation capability (the user is then asked), ${OR_APPROVE}`,
      channel ? { details: { requiredCapabilities: { elicitation: {} } } } : {},
    ),
  );
}
