/**
 * The consent step's sealed states: the one a question carries out, and the check of the
 * one a retry echoes back. A state is bound to its purpose as well as to the caller, tool
 * and arguments: a confirmation's state cannot stand in for an approval's, nor the other
 * way round.
 */
import type { ConsentCall } from './consent-call.js';
import type { ConsentVerdict } from './consent-types.js';
import {
  openRequestState,
  sealRequestState,
  type ConsentBinding,
  type OpenFailure,
  type OpenResult,
  type SealedState,
} from './request-state.js';

/** Which question a state belongs to: a form confirmation, an approval, or the confirmation page. */
export type StatePurpose = 'confirm' | 'approve' | 'confirm-page';

const OPEN_REASONS: Readonly<Record<OpenFailure, string>> = {
  forged: 'the requestState was not sealed by this gateway',
  expired: 'the requestState has expired; make the call again',
  mismatch: 'the requestState belongs to another caller, tool or arguments',
  malformed: 'the requestState is not one this gateway issues',
};

function binding(call: ConsentCall, purpose: StatePurpose): ConsentBinding {
  return {
    caller: call.caller.id,
    tool: `${call.grant.tool}#${purpose}`,
    args: call.input.value,
    argumentsDigest: call.digest,
  };
}

/** The state a question carries; `ttlMs` when it lives other than the default. */
export function sealState(call: ConsentCall, purpose: StatePurpose, ttlMs?: number): SealedState {
  const { services, now } = call.grant;
  return sealRequestState(
    services.key,
    binding(call, purpose),
    ttlMs === undefined ? { now } : { now, ttlMs },
  );
}

/** The state the retry echoes, when it is this gateway's, unexpired and bound to this call. */
export function openState(call: ConsentCall, purpose: StatePurpose): OpenResult {
  const { services, now } = call.grant;
  return openRequestState(services.key, call.questions!.state, binding(call, purpose), {
    now,
  });
}

/** The refusal of a state that does not open, saying why. */
export function stateRefused(call: ConsentCall, reason: OpenFailure): ConsentVerdict {
  return call.invalid(reason, OPEN_REASONS[reason]);
}
