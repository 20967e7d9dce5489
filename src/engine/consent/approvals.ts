/**
 * Approvals (docs/spec-language.md, "Confirmation and approval":
 * `approve "<message>" by="<scope>" expires="<duration>"`):
 * a call that needs someone else's approval is parked here until a person holding the
 * scope approves or declines it; the same caller repeating the same call (same tool,
 * same argument digest) then runs it exactly once.
 *
 * The store never sees argument values: only their digest and the message already
 * filled from them. Every expected outcome is a value; a store that cannot answer at
 * all (Redis down) rejects, and the caller refuses the call (approvals fail closed).
 *
 * The same store keeps the confirmations a caller's user gives on the gateway's page
 * (`/confirm/<id>`, for a client that can only open a URL: confirm-page-decision.ts), as
 * records of another kind: parked, decided and consumed the same way, under keys of their
 * own, never listed to approvers, and decided only by the caller whose call it is.
 *
 * Implementations: memory-approval-store.ts (one process), redis-approval-store.ts
 * (shared by replicas, surviving a restart of one).
 */
import { createHash, randomBytes } from 'node:crypto';

/** What a caller holds: a set of scope names, or 'all' (no `access` block). */
export type ScopesHeld = ReadonlySet<string> | 'all';

/**
 * What a record is: an approval (someone else holding the scope decides) or a
 * confirmation (the caller's own user decides, on the confirmation page).
 */
export type RecordKind = 'approval' | 'confirmation';

export interface ApprovalRequest {
  /** Absent: an approval. */
  readonly kind?: RecordKind;
  readonly callerId: string;
  readonly tool: string;
  /** A digest of the validated arguments, never the arguments. */
  readonly argumentsDigest: string;
  /** The grant's message with its placeholders already filled. */
  readonly message: string;
  /** The scope a decider must hold ('' on a confirmation: its caller decides). */
  readonly scope: string;
  /** Epoch ms after which the approval lapses, used or not. */
  readonly expiresAt: number;
  /**
   * Epoch ms the call asked, read from the same clock reading as `expiresAt`, so the record
   * shows exactly the lifetime the grant declares (two readings can be a millisecond apart).
   * Absent: the store's own clock when it records the request.
   */
  readonly requestedAt?: number;
}

export type ApprovalStatus = 'pending' | 'approved' | 'declined';

export interface Approval {
  readonly kind: RecordKind;
  /** ≥128 random bits, base64url: unguessable, so it may appear in a url. */
  readonly id: string;
  readonly tool: string;
  readonly message: string;
  readonly scope: string;
  /** Who asked: shown to deciders, and never allowed to decide. */
  readonly requestedBy: string;
  readonly requestedAt: number;
  readonly expiresAt: number;
  readonly status: ApprovalStatus;
  readonly decidedBy?: string;
}

export type RequestOutcome =
  /** Pending: `created` is false when an identical request was already waiting. */
  | { readonly kind: 'pending'; readonly approval: Approval; readonly created: boolean }
  /** Already decided and not yet consumed: the caller should `consume` instead. */
  | { readonly kind: 'decided'; readonly approval: Approval }
  /**
   * Not parked: the caller already holds MAX_PENDING_PER_CALLER pending approvals;
   * `soonestExpiresAt` is when the first of them lapses if nobody decides it.
   */
  | { readonly kind: 'full'; readonly pending: number; readonly soonestExpiresAt: number };

export type Decision = 'approve' | 'decline';

export type DecideRefusal =
  | 'unknown'
  | 'missing-scope'
  | 'own-request'
  /** A confirmation is decided by the caller whose call it is, and by nobody else. */
  | 'other-caller'
  | 'expired'
  | 'already-decided';

export type DecideOutcome =
  | { readonly kind: 'decided'; readonly approval: Approval }
  | { readonly kind: 'refused'; readonly reason: DecideRefusal; readonly message: string };

export type ConsumeOutcome =
  /** Approved: run the call now. The approval is spent. */
  | { readonly kind: 'run'; readonly approval: Approval }
  /** Still waiting: answer APPROVAL_REQUIRED with this approval again. */
  | { readonly kind: 'pending'; readonly approval: Approval }
  /** Declined (said once; a later repeat starts a new request). */
  | { readonly kind: 'declined'; readonly approval: Approval }
  /** Lapsed before it was used (said once; a later repeat starts a new request). */
  | { readonly kind: 'expired' }
  /** Nothing on record for this caller, tool and digest. */
  | { readonly kind: 'none' };

/**
 * Pending approvals one caller may hold at once (spec-language.md): without a bound one
 * caller parked 4,000 and the approvers' list grew to megabytes. Repeating a pending call
 * parks nothing, so it is never refused for this. Confirmations are counted apart, under
 * the same bound: a caller's waiting approvals never stop its user confirming.
 */
export const MAX_PENDING_PER_CALLER = 20;

export interface ApprovalStore {
  /**
   * Parks a call; repeating it while pending returns the same approval. A new one is
   * refused ('full', nothing stored) when its caller holds MAX_PENDING_PER_CALLER of
   * that kind.
   */
  request(req: ApprovalRequest): Promise<RequestOutcome>;
  /**
   * The pending, unexpired approvals whose scope the caller holds, soonest expiry first;
   * never a confirmation.
   */
  listPending(scopesHeld: ScopesHeld): Promise<readonly Approval[]>;
  /**
   * An approval: by someone holding its scope, never its own caller. A confirmation
   * (`kind`): by its own caller only, whatever it holds. A record of the other kind is
   * 'unknown'.
   */
  decide(
    id: string,
    decision: Decision,
    deciderId: string,
    deciderScopes: ScopesHeld,
    kind?: RecordKind,
  ): Promise<DecideOutcome>;
  /** The record `id` of that kind as it stands (decided and lapsed ones while kept), or none. */
  find(id: string, kind: RecordKind): Promise<Approval | undefined>;
  /** Atomic: of concurrent consumers (any replica) of one approval, only one gets 'run'. */
  consume(
    callerId: string,
    tool: string,
    argumentsDigest: string,
    kind?: RecordKind,
  ): Promise<ConsumeOutcome>;
  close(): Promise<void>;
}

export interface ApprovalStoreOptions {
  /** Epoch ms; injected by tests. */
  readonly now?: () => number;
  /**
   * How long a lapsed or declined record is kept after `expiresAt` so that the caller's
   * repeat hears 'expired'/'declined' rather than 'none' (default 1 hour).
   */
  readonly retainMs?: number;
}

export const DEFAULT_RETAIN_MS = 60 * 60 * 1000;

/**
 * 128 random bits, base64url (22 characters), never starting with `-` or `_`: an id is
 * pasted onto command lines (`mcp-beaver approvals <url> approve <id>`), where a leading
 * `-` reads as an option. Drawing again in that case (1 time in 32) keeps every id
 * equally likely among those allowed.
 */
export function newApprovalId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (id[0] !== '-' && id[0] !== '_') return id;
  }
}

/** Ids this store could have made; anything else is unknown without a lookup. */
export function isApprovalIdShape(id: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_-]{21}$/.test(id);
}

/**
 * One key per caller, tool and argument digest (hashed: caller ids may be long or odd),
 * and kind: an approval's key is the one earlier versions wrote, a confirmation's its own.
 */
export function requestKey(
  callerId: string,
  tool: string,
  argumentsDigest: string,
  kind: RecordKind = 'approval',
): string {
  const named = [callerId, tool, argumentsDigest];
  if (kind !== 'approval') named.push(kind);
  return createHash('sha256').update(JSON.stringify(named)).digest('base64url');
}

export function holdsScope(held: ScopesHeld, scope: string): boolean {
  return held === 'all' || held.has(scope);
}

export const REFUSAL_MESSAGES: Readonly<Record<DecideRefusal, string>> = {
  unknown: 'no such approval',
  'missing-scope': 'deciding this approval needs a scope the caller does not hold',
  'own-request': 'cannot approve your own call',
  'other-caller': 'only the caller whose call it is may answer this confirmation',
  expired: 'the approval has expired',
  'already-decided': 'the approval has already been decided',
};

export function refused(reason: DecideRefusal): DecideOutcome {
  return { kind: 'refused', reason, message: REFUSAL_MESSAGES[reason] };
}
