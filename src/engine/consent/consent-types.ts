/**
 * What the consent step (consent-step.ts) is given and what it answers: its key and stores,
 * what a request says about asking its user, its verdict, and its audit lines.
 */
import type { KeyObject } from 'node:crypto';
import type { CallArguments } from '../call-arguments.js';
import type { RequestScope } from '../call-context.js';
import type { EngineError } from '../error-catalogue.js';
import type { ApprovalStore } from './approvals.js';
import type { Question } from './questions.js';
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
  | 'confirmation_pending'
  | 'confirmation_confirmed'
  | 'confirmation_expired'
  | 'confirmation_run'
  /** A 2025-era question dropped unanswered: its stream closed, its wait ran out, a shutdown. */
  | 'confirmation_abandoned'
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
  /** The confirmation page's record (`/confirm/<id>`), for a caller sent there. */
  readonly confirmationId?: string;
  readonly decidedBy?: string;
  /** Why a state was refused: forged, expired, mismatch, malformed, spent, missing. */
  readonly reason?: string;
}

export type ConsentAudit = (line: ConsentAuditLine) => void;

/** Go on (undefined), refuse with an error, or ask the user first. */
export type ConsentVerdict =
  undefined | { readonly error: EngineError } | { readonly ask: Question };

/** `input`: the checked arguments with the caller's number texts, as the backend gets them. */
export type ConsentCheck = (input: CallArguments, scope: RequestScope) => Promise<ConsentVerdict>;
