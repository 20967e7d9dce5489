/**
 * What a person reads before saying yes: a grant's `confirm` or `approve` message filled
 * from the call's arguments, the `details.approval` an answer carries, and the refusal
 * of one approval too many. A value is
 * written as the text that goes upstream (number-text.ts): a `raw` `1e400` or `-0` is
 * shown as such, not as the `null` or `0` its double would print, so what the approver
 * or the user reads is what runs.
 */
import type { ConsentMessage } from '../../compiler/descriptor.js';
import { fillPlaceholders } from '../../compiler/prompt-text.js';
import type { CallArguments } from '../call-arguments.js';
import { stringifyJson } from '../../json/number-text.js';
import { engineError, type EngineError } from '../error-catalogue.js';
import { retryAfterSeconds } from '../rate-limit/rate-limiter.js';
import {
  MAX_PENDING_PER_CALLER,
  type Approval,
  type RecordKind,
  type RequestOutcome,
} from './approvals.js';

/** Each value in a message is cut to this many characters. */
const MESSAGE_VALUE_MAX = 200;

/** The text of argument `name`: a string as given, the rest as the JSON sent, cut short. */
function valueText(input: CallArguments, name: string): string {
  const v = input.value[name];
  let text: string;
  if (typeof v === 'string') text = v;
  else if (v === undefined) text = '(not given)';
  else if (typeof v === 'number') text = input.texts?.textAt(name, v) ?? JSON.stringify(v);
  else text = stringifyJson(v, input.texts?.at(name));
  return text.length > MESSAGE_VALUE_MAX ? `${text.slice(0, MESSAGE_VALUE_MAX)}…` : text;
}

export function fillMessage(m: ConsentMessage, input: CallArguments): string {
  const values: Record<string, string> = {};
  for (const p of m.parts) if ('argument' in p) values[p.argument] = valueText(input, p.argument);
  return fillPlaceholders(m.parts, values);
}

/** The answer's shape the gateway and its clients read: `details.approval`. */
export function approvalDetails(a: Approval, url: string): Record<string, unknown> {
  return {
    approval: {
      id: a.id,
      url,
      message: a.message,
      scope: a.scope,
      expires_at: new Date(a.expiresAt).toISOString(),
    },
  };
}

/**
 * The refusal of a call that would park one approval (or, `kind`, one page confirmation)
 * more than its caller may hold.
 */
export function pendingLimitError(
  tool: string,
  full: Extract<RequestOutcome, { kind: 'full' }>,
  now: number,
  kind: RecordKind = 'approval',
): EngineError {
  const retryAfter = retryAfterSeconds(full.soonestExpiresAt - now);
  const first = new Date(full.soonestExpiresAt).toISOString();
  if (kind === 'confirmation')
    return engineError(
      'RATE_LIMITED',
      `${tool}: this caller has ${full.pending} confirmations waiting on their page, the most one caller may hold (${MAX_PENDING_PER_CALLER}); nothing was parked. Answer one (repeating a waiting call is allowed) or wait until one lapses, the first at ${first}`,
      {
        retryAfter,
        details: {
          pendingConfirmations: full.pending,
          maxPendingConfirmations: MAX_PENDING_PER_CALLER,
        },
      },
    );
  return engineError(
    'RATE_LIMITED',
    `${tool}: this caller has ${full.pending} approvals pending, the most one caller may hold (${MAX_PENDING_PER_CALLER}); nothing was parked. Wait until an approver decides one (repeating a pending call is allowed) or until one lapses, the first at ${first}`,
    {
      retryAfter,
      details: { pendingApprovals: full.pending, maxPendingApprovals: MAX_PENDING_PER_CALLER },
    },
  );
}
