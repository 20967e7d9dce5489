/**
 * The in-process approval store: one process's pending approvals, lost on restart.
 * Records past `expiresAt + retainMs` are swept on every operation, so the maps stay
 * bounded by what is live. Parking a new one walks them once more to count the caller's
 * pending ones (MAX_PENDING_PER_CALLER): the sweep already costs that walk.
 */
import {
  DEFAULT_RETAIN_MS,
  holdsScope,
  isApprovalIdShape,
  MAX_PENDING_PER_CALLER,
  newApprovalId,
  refused,
  requestKey,
  type Approval,
  type ApprovalRequest,
  type ApprovalStore,
  type ApprovalStoreOptions,
  type ConsumeOutcome,
  type DecideOutcome,
  type Decision,
  type RecordKind,
  type RequestOutcome,
  type ScopesHeld,
} from './approvals.js';

interface Entry {
  readonly key: string;
  approval: Approval;
}

export function createMemoryApprovalStore(opts: ApprovalStoreOptions = {}): ApprovalStore {
  const now = opts.now ?? Date.now;
  const retainMs = opts.retainMs ?? DEFAULT_RETAIN_MS;
  const byId = new Map<string, Entry>();
  const byKey = new Map<string, string>();

  const drop = (e: Entry): void => {
    byId.delete(e.approval.id);
    if (byKey.get(e.key) === e.approval.id) byKey.delete(e.key);
  };
  const sweep = (t: number): void => {
    for (const e of byId.values()) if (e.approval.expiresAt + retainMs <= t) drop(e);
  };

  /** The refusal when `callerId` already holds the most pending records of `kind` it may. */
  const pendingOf = (callerId: string, kind: RecordKind, t: number): RequestOutcome | undefined => {
    let pending = 0;
    let soonestExpiresAt = Infinity;
    for (const { approval: a } of byId.values()) {
      if (a.requestedBy !== callerId || a.kind !== kind) continue;
      if (a.status !== 'pending' || a.expiresAt <= t) continue;
      pending++;
      soonestExpiresAt = Math.min(soonestExpiresAt, a.expiresAt);
    }
    return pending >= MAX_PENDING_PER_CALLER
      ? { kind: 'full', pending, soonestExpiresAt }
      : undefined;
  };

  return {
    async request(req: ApprovalRequest): Promise<RequestOutcome> {
      const t = now();
      sweep(t);
      const kind = req.kind ?? 'approval';
      const key = requestKey(req.callerId, req.tool, req.argumentsDigest, kind);
      const existingId = byKey.get(key);
      const existing = existingId === undefined ? undefined : byId.get(existingId);
      if (existing && existing.approval.expiresAt > t) {
        return existing.approval.status === 'pending'
          ? { kind: 'pending', approval: existing.approval, created: false }
          : { kind: 'decided', approval: existing.approval };
      }
      // A lapsed record is replaced by a fresh request.
      if (existing) drop(existing);
      const full = pendingOf(req.callerId, kind, t);
      if (full) return full;
      const approval: Approval = {
        kind,
        id: newApprovalId(),
        tool: req.tool,
        message: req.message,
        scope: req.scope,
        requestedBy: req.callerId,
        requestedAt: req.requestedAt ?? t,
        expiresAt: req.expiresAt,
        status: 'pending',
      };
      byId.set(approval.id, { key, approval });
      byKey.set(key, approval.id);
      return { kind: 'pending', approval, created: true };
    },

    async listPending(scopesHeld: ScopesHeld): Promise<readonly Approval[]> {
      const t = now();
      sweep(t);
      return [...byId.values()]
        .map((e) => e.approval)
        .filter(
          (a) =>
            a.kind === 'approval' &&
            a.status === 'pending' &&
            a.expiresAt > t &&
            holdsScope(scopesHeld, a.scope),
        )
        .sort((a, b) => a.expiresAt - b.expiresAt);
    },

    async decide(
      id: string,
      decision: Decision,
      deciderId: string,
      deciderScopes: ScopesHeld,
      kind: RecordKind = 'approval',
    ): Promise<DecideOutcome> {
      const t = now();
      sweep(t);
      const e = isApprovalIdShape(id) ? byId.get(id) : undefined;
      if (!e || e.approval.kind !== kind) return refused('unknown');
      const a = e.approval;
      if (kind === 'confirmation') {
        // Its own caller, and nobody else, whatever scopes they hold.
        if (a.requestedBy !== deciderId) return refused('other-caller');
      } else {
        // Scope first: someone without it learns nothing more about the approval.
        if (!holdsScope(deciderScopes, a.scope)) return refused('missing-scope');
        if (a.requestedBy === deciderId) return refused('own-request');
      }
      if (a.expiresAt <= t) return refused('expired');
      if (a.status !== 'pending') return refused('already-decided');
      e.approval = {
        ...a,
        status: decision === 'approve' ? 'approved' : 'declined',
        decidedBy: deciderId,
      };
      return { kind: 'decided', approval: e.approval };
    },

    async find(id: string, kind: RecordKind): Promise<Approval | undefined> {
      sweep(now());
      const e = isApprovalIdShape(id) ? byId.get(id) : undefined;
      return e?.approval.kind === kind ? e.approval : undefined;
    },

    async consume(
      callerId: string,
      tool: string,
      argumentsDigest: string,
      kind: RecordKind = 'approval',
    ): Promise<ConsumeOutcome> {
      const t = now();
      sweep(t);
      const id = byKey.get(requestKey(callerId, tool, argumentsDigest, kind));
      const e = id === undefined ? undefined : byId.get(id);
      if (!e) return { kind: 'none' };
      const a = e.approval;
      if (a.status === 'declined') {
        drop(e);
        return { kind: 'declined', approval: a };
      }
      if (a.expiresAt <= t) {
        drop(e);
        return { kind: 'expired' };
      }
      if (a.status === 'approved') {
        drop(e);
        return { kind: 'run', approval: a };
      }
      return { kind: 'pending', approval: a };
    },

    async close() {
      byId.clear();
      byKey.clear();
    },
  };
}
