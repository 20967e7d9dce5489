/**
 * The consent step of the pipeline (docs/spec-language.md, "Confirmation and approval"):
 * a grant's `confirm` and `approve`, run on the validated arguments after every guard and
 * before the backend, so a call that is refused, declined or still waiting sends nothing.
 * It counts the grant's rate limit itself: on a confirmed call, and on parking an
 * approval (whose run is then not counted again), never on a question or a wait. It never waits for a person: it answers at once (ask, refuse,
 * park) and the caller's retry carries the call on, on any replica.
 *
 * Order, when a grant has both: an approval already on record for this caller, tool and
 * arguments decides first (its confirmation was given when it was requested); otherwise
 * a caller that can be asked confirms, and then the approval is requested.
 */
import type { KeyObject } from 'node:crypto';
import type { ConsentDescriptor, ToolDescriptor } from '../../compiler/descriptor.js';
import type { CallArguments } from '../call-arguments.js';
import type { CallContext } from '../call-context.js';
import type { Caller } from '../caller.js';
import { engineError, type EngineError } from '../error-catalogue.js';
import type { RateCheck } from '../rate-limit/rate-limiter.js';
import type { Approval, ApprovalStore } from './approvals.js';
import { argumentsDigest } from './arguments-digest.js';
import { approvalDetails, fillMessage, pendingLimitError } from './consent-message.js';
import { openRequestState, sealRequestState, type OpenFailure } from './request-state.js';
import type { SpentStates } from './spent-states.js';

/** What the step needs beyond the grant: the sealing key and the two stores. */
export interface ConsentServices {
  readonly key: KeyObject;
  readonly spent: SpentStates;
  readonly approvals: ApprovalStore;
  readonly audit?: ConsentAudit;
  readonly now?: () => number;
}

export type ConsentAuditEvent =
  | 'confirmation_requested'
  | 'confirmation_accepted'
  | 'confirmation_declined'
  | 'confirmation_cancelled'
  | 'confirmation_invalid'
  | 'confirmation_unavailable'
  | 'approval_requested'
  | 'approval_pending'
  | 'approval_approved'
  | 'approval_declined'
  | 'approval_expired'
  | 'approval_run';

/** One audit line of the step: who, which tool, which arguments (their digest), never values. */
export interface ConsentAuditLine {
  readonly event: ConsentAuditEvent;
  readonly tool: string;
  readonly caller: string;
  /** Absent on a decision, which is taken on the approval, not on the call's arguments. */
  readonly argumentsDigest?: string;
  readonly approvalId?: string;
  readonly decidedBy?: string;
  /** Why a state was refused: forged, expired, mismatch, malformed, spent, missing. */
  readonly reason?: string;
}

export type ConsentAudit = (line: ConsentAuditLine) => void;

/**
 * What a 2026-07-28 request says about asking its user (its `clientCapabilities` and, on
 * a retry, what it echoes). REST and the 2025 eras have none: nobody can be asked there.
 */
export interface ConsentChannel {
  /** `elicitation` declared (form mode: an empty object or `form`). */
  readonly elicitForm: boolean;
  /** `elicitation.url` declared. */
  readonly elicitUrl: boolean;
  /** The retry's `inputResponses`, as sent. */
  readonly inputResponses?: unknown;
  /** The retry's `requestState`, as sent. */
  readonly requestState?: unknown;
}

/** An MRTR `input_required` answer: what to ask the client's user, and the sealed state. */
export interface InputRequired {
  readonly inputRequests: Readonly<Record<string, unknown>>;
  readonly requestState: string;
}

/** Go on (undefined), refuse with an error, or ask the user first. */
export type ConsentVerdict =
  undefined | { readonly error: EngineError } | { readonly ask: InputRequired };

/** `input`: the checked arguments with the caller's number texts, as the backend gets them. */
export type ConsentCheck = (
  input: CallArguments,
  caller: Caller,
  ctx: CallContext,
  channel: ConsentChannel | undefined,
) => Promise<ConsentVerdict>;

/** What else lets a confirm-only call run, for a caller that cannot be asked. */
const OR_APPROVE = 'or once the spec gives this grant `approve` (someone else then says yes)';

const CONFIRM_SCHEMA = Object.freeze({
  type: 'object',
  properties: { confirm: { type: 'boolean', title: 'Confirm', description: 'Run this call?' } },
  required: ['confirm'],
});

const OPEN_REASONS: Readonly<Record<OpenFailure, string>> = {
  forged: 'the requestState was not sealed by this gateway',
  expired: 'the requestState has expired; make the call again',
  mismatch: 'the requestState belongs to another caller, tool or arguments',
  malformed: 'the requestState is not one this gateway issues',
};

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The step for one grant, or undefined when it has neither `confirm` nor `approve`. */
export function prepareConsent(
  d: ToolDescriptor,
  services: ConsentServices,
  rateLimit?: RateCheck,
): ConsentCheck | undefined {
  const consent: ConsentDescriptor | undefined = d.consent;
  if (!consent) return undefined;
  const { confirm, approve } = consent;
  const now = services.now ?? Date.now;
  const tool = d.name;
  // A state is bound to its purpose as well as to the tool: a confirmation's state cannot
  // stand in for an approval's, nor the other way round.
  const confirmBinding = `${tool}#confirm`;
  const approveBinding = `${tool}#approve`;

  return async function consentStep(input, caller, ctx, channel) {
    try {
      return await decide(input, caller, ctx, channel);
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

  async function decide(
    input: CallArguments,
    caller: Caller,
    ctx: CallContext,
    channel: ConsentChannel | undefined,
  ): Promise<ConsentVerdict> {
    const args = input.value;
    // Over the text that goes upstream, not the doubles: `1e400` is not `null` (arguments-digest.ts).
    const digest = argumentsDigest(args, input.texts);
    const audit = (
      event: ConsentAuditEvent,
      extra: Partial<Omit<ConsentAuditLine, 'event'>> = {},
    ): void =>
      services.audit?.({ event, tool, caller: caller.id, argumentsDigest: digest, ...extra });
    const refuse = (
      event: ConsentAuditEvent,
      error: EngineError,
      extra?: Partial<ConsentAuditLine>,
    ): ConsentVerdict => {
      audit(event, extra);
      return { error };
    };
    const invalid = (reason: string, message: string): ConsentVerdict =>
      refuse('confirmation_invalid', engineError('CONFIRMATION_INVALID', message), { reason });
    const approvalUrl = (id: string): string =>
      ctx.approvalUrl ? ctx.approvalUrl(id) : `/approvals/${id}`;

    const responses = isObject(channel?.inputResponses) ? channel.inputResponses : undefined;
    const isRetry =
      channel !== undefined &&
      (channel.requestState !== undefined || channel.inputResponses !== undefined);
    // A retry answers the approval's URL request, or (grants with `confirm`) the confirmation.
    const approveRetry =
      isRetry &&
      approve !== undefined &&
      (confirm === undefined || Object.hasOwn(responses ?? {}, 'approve'));

    // An approval waiting. A client declaring URL mode is handed its link, unless this is
    // already the retry of that link (then it is APPROVAL_REQUIRED, not asked in a loop);
    // the retry of a confirmation (grants with both) is asked too: the approval is new.
    const pending = (a: Approval, created: boolean): ConsentVerdict => {
      const url = approvalUrl(a.id);
      audit(created ? 'approval_requested' : 'approval_pending', { approvalId: a.id });
      if (channel?.elicitUrl && !approveRetry) {
        const sealed = sealRequestState(
          services.key,
          { caller: caller.id, tool: approveBinding, args, argumentsDigest: digest },
          { now, ttlMs: Math.max(1, a.expiresAt - now()) },
        );
        return {
          ask: {
            inputRequests: {
              approve: {
                method: 'elicitation/create',
                params: {
                  mode: 'url',
                  message: `${a.message} (needs approval by someone holding ${a.scope}; open the link to see it)`,
                  url,
                },
              },
            },
            requestState: sealed.requestState,
          },
        };
      }
      return {
        error: engineError(
          'APPROVAL_REQUIRED',
          `this call waits for approval by someone holding the scope ${a.scope} (until ${new Date(a.expiresAt).toISOString()}); it is at ${url}. Repeat the same call once it is approved.`,
          { details: approvalDetails(a, url) },
        ),
      };
    };

    if (approveRetry) {
      const opened = openRequestState(
        services.key,
        channel!.requestState,
        { caller: caller.id, tool: approveBinding, args, argumentsDigest: digest },
        { now },
      );
      if (!opened.ok) return invalid(opened.reason, OPEN_REASONS[opened.reason]);
    }

    if (approve) {
      const held = await services.approvals.consume(caller.id, tool, digest);
      switch (held.kind) {
        case 'run':
          audit('approval_run', {
            approvalId: held.approval.id,
            ...(held.approval.decidedBy !== undefined && { decidedBy: held.approval.decidedBy }),
          });
          return undefined;
        case 'pending':
          return pending(held.approval, false);
        case 'declined':
          return refuse(
            'approval_declined',
            engineError(
              'APPROVAL_DECLINED',
              `the approval of this call was declined${held.approval.decidedBy ? ` by ${held.approval.decidedBy}` : ''}; nothing was sent`,
            ),
            { approvalId: held.approval.id },
          );
        case 'expired':
          return refuse(
            'approval_expired',
            engineError(
              'APPROVAL_EXPIRED',
              'the approval of this call lapsed before it was used; nothing was sent. Make the call again to ask anew',
            ),
          );
        case 'none':
          // The state outlived its approval (run, or gone): a replay must not park a new
          // request each time it is sent, filling the approvers' queue.
          if (approveRetry)
            return invalid(
              'spent',
              'the approval this requestState belongs to has been used or is gone; make the call again, without the state, to ask anew',
            );
          break;
      }
    }

    if (confirm && !approveRetry) {
      if (isRetry) {
        if (channel!.requestState === undefined)
          return invalid(
            'missing',
            'the retry carries no requestState; echo the one the gateway sent',
          );
        const opened = openRequestState(
          services.key,
          channel!.requestState,
          { caller: caller.id, tool: confirmBinding, args, argumentsDigest: digest },
          { now },
        );
        if (!opened.ok) return invalid(opened.reason, OPEN_REASONS[opened.reason]);
        // Spent before the answer is read: one state, one answer, whatever it says.
        if (!(await services.spent.markSpent(opened.state.nonce, opened.state.expiresAt)))
          return invalid('spent', 'the requestState has already been used; make the call again');
        const answer = responses?.confirm;
        const action = isObject(answer) ? answer.action : undefined;
        const said =
          isObject(answer) && isObject(answer.content) ? answer.content.confirm : undefined;
        if (action === 'cancel')
          return refuse(
            'confirmation_cancelled',
            engineError(
              'CONFIRMATION_CANCELLED',
              'the user dismissed the confirmation; nothing was sent',
            ),
          );
        if (action === 'decline' || (action === 'accept' && said === false))
          return refuse(
            'confirmation_declined',
            engineError('CONFIRMATION_DECLINED', 'the user declined; nothing was sent'),
          );
        if (action !== 'accept' || said !== true)
          return invalid(
            'malformed',
            'the retry needs inputResponses.confirm, the answer to the confirmation: {"action":"accept","content":{"confirm":true}}, or decline or cancel',
          );
        audit('confirmation_accepted');
      } else if (channel?.elicitForm) {
        const sealed = sealRequestState(
          services.key,
          { caller: caller.id, tool: confirmBinding, args, argumentsDigest: digest },
          { now },
        );
        audit('confirmation_requested');
        return {
          ask: {
            inputRequests: {
              confirm: {
                method: 'elicitation/create',
                params: {
                  mode: 'form',
                  message: fillMessage(confirm.message, input),
                  requestedSchema: CONFIRM_SCHEMA,
                },
              },
            },
            requestState: sealed.requestState,
          },
        };
      } else if (!approve) {
        return refuse(
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
      // Without a way to ask, `approve` takes over: someone else says yes.
    }

    if (approve) {
      // Parking counts as the call (the approved run is not counted again): a caller
      // cannot park more than its rate limit allows, and nothing is parked when refused.
      const limited = await rateLimit?.(caller);
      if (limited) return { error: limited };
      const asked = await services.approvals.request({
        callerId: caller.id,
        tool,
        argumentsDigest: digest,
        message: fillMessage(approve.message, input),
        scope: approve.scope,
        expiresAt: now() + approve.expiresMs,
      });
      if (asked.kind === 'pending') return pending(asked.approval, asked.created);
      if (asked.kind === 'full') return { error: pendingLimitError(tool, asked, now()) };
      // Decided between our consume and this request (another replica): consume once more.
      const again = await services.approvals.consume(caller.id, tool, digest);
      if (again.kind === 'run') {
        audit('approval_run', { approvalId: again.approval.id });
        return undefined;
      }
      return refuse(
        again.kind === 'declined' ? 'approval_declined' : 'approval_expired',
        again.kind === 'declined'
          ? engineError(
              'APPROVAL_DECLINED',
              'the approval of this call was declined; nothing was sent',
            )
          : engineError(
              'APPROVAL_EXPIRED',
              'the approval of this call lapsed before it was used; nothing was sent',
            ),
      );
    }
    // A confirmed call (no `approve`) counts now: questions and declines are free.
    const limited = await rateLimit?.(caller);
    return limited && { error: limited };
  }
}
