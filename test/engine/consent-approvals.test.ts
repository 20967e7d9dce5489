/**
 * The approval store (issue 29, not yet in docs/spec-language.md:
 * `approve "<message>" by="<scope>" expires="…"`):
 * one case table run against the in-memory store and the Redis store, then what only
 * the Redis store promises: two instances (two replicas) racing one approval get one
 * 'run' between them, and a new instance (a restart) still sees what was pending.
 *
 * The Redis cases use the run's Redis (test/helpers/test-services.ts) under a key
 * prefix unique to this run, and delete only their own keys.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  isApprovalIdShape,
  MAX_PENDING_PER_CALLER,
  newApprovalId,
  type ApprovalRequest,
  type ApprovalStore,
  type ApprovalStoreOptions,
  type RequestOutcome,
} from '../../src/engine/consent/approvals.js';
import { createMemoryApprovalStore } from '../../src/engine/consent/memory-approval-store.js';
import { createRedisApprovalStore } from '../../src/engine/consent/redis-approval-store.js';
import { redisSkipReason, redisUrl } from '../helpers/needs-services.js';
import { skipBecause } from '../helpers/skip-reason.js';

const SHARED_REDIS = redisUrl();
const NO_SHARED_REDIS = redisSkipReason();
const RUN_PREFIX = `mcpb:test-ap:${randomBytes(6).toString('hex')}:`;
const MINUTE = 60_000;
const T0 = Date.UTC(2026, 11, 2, 1, 0, 0);

const AGENT = 'agent';
const FINANCE = 'finance';
const FINANCE_SCOPES: ReadonlySet<string> = new Set(['payments:approve']);
const AGENT_SCOPES: ReadonlySet<string> = new Set(['payments:write']);

class TestClock {
  t = T0;
  readonly now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

/** A request the store answers with an approval (pending or decided), not a refusal. */
async function parked(
  store: ApprovalStore,
  req: ApprovalRequest,
): Promise<Exclude<RequestOutcome, { kind: 'full' }>> {
  const out = await store.request(req);
  if (out.kind === 'full') throw new Error(`refused: ${out.pending} pending`);
  return out;
}

function refund(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    callerId: AGENT,
    tool: 'create_refund',
    argumentsDigest: 'digest-of-amount-500-payment-7',
    message: 'Refund 500 cents on payment 7',
    scope: 'payments:approve',
    expiresAt: T0 + 15 * MINUTE,
    ...overrides,
  };
}

interface Flavour {
  readonly name: string;
  /** Why this store cannot run here, or undefined when it can. */
  readonly unavailable: string | undefined;
  open(opts: ApprovalStoreOptions, prefix: string): Promise<ApprovalStore>;
}

let prefixCount = 0;
const freshPrefix = (): string => `${RUN_PREFIX}${++prefixCount}:`;

const FLAVOURS: readonly Flavour[] = [
  {
    name: 'the in-memory store',
    unavailable: undefined,
    open: async (o) => createMemoryApprovalStore(o),
  },
  {
    name: 'the Redis store',
    unavailable: NO_SHARED_REDIS && `consent-approvals.test.ts, Redis: ${NO_SHARED_REDIS}`,
    open: (o, prefix) => createRedisApprovalStore(SHARED_REDIS!, { ...o, prefix }),
  },
];

const opened: ApprovalStore[] = [];
afterAll(async () => {
  for (const s of opened.splice(0)) await s.close();
  if (!SHARED_REDIS) return;
  const redis = new Redis(SHARED_REDIS, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  const keys = await redis.keys(`${RUN_PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

for (const flavour of FLAVOURS) {
  describe.skipIf(skipBecause(flavour.unavailable !== undefined, flavour.unavailable ?? ''))(
    `approvals in ${flavour.name}`,
    () => {
      let clock: TestClock;
      let store: ApprovalStore;

      const open = async (): Promise<ApprovalStore> => {
        clock = new TestClock();
        const s = await flavour.open({ now: clock.now }, freshPrefix());
        opened.push(s);
        return s;
      };

      it('records the time the call asked as the request gives it, so its lifetime is exactly what the grant declares', async () => {
        store = await open();
        // The store's clock has moved on by a millisecond since the call read its own.
        clock.advance(1);
        const asked = await store.request(refund({ requestedAt: T0, expiresAt: T0 + 10 * MINUTE }));
        expect(asked.kind).toBe('pending');
        if (asked.kind !== 'pending') return;
        expect(asked.approval.requestedAt).toBe(T0);
        expect(asked.approval.expiresAt - asked.approval.requestedAt).toBe(10 * MINUTE);
        expect((await store.find(asked.approval.id, 'approval'))?.requestedAt).toBe(T0);
      });

      it('a request is pending with an unguessable base64url id, and repeating it returns the same approval', async () => {
        store = await open();
        const first = await store.request(refund());
        expect(first.kind).toBe('pending');
        if (first.kind !== 'pending') return;
        expect(first.created).toBe(true);
        expect(first.approval.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
        expect(first.approval).toMatchObject({
          tool: 'create_refund',
          message: 'Refund 500 cents on payment 7',
          scope: 'payments:approve',
          requestedBy: AGENT,
          requestedAt: T0,
          expiresAt: T0 + 15 * MINUTE,
          status: 'pending',
        });
        clock.advance(MINUTE);
        const again = await store.request(refund());
        expect(again).toEqual({ kind: 'pending', approval: first.approval, created: false });
        expect(await store.consume(AGENT, 'create_refund', refund().argumentsDigest)).toEqual({
          kind: 'pending',
          approval: first.approval,
        });
      });

      it('other arguments, another tool or another caller make separate approvals', async () => {
        store = await open();
        const ids = new Set<string>();
        for (const r of [
          refund(),
          refund({ argumentsDigest: 'digest-of-amount-900-payment-7' }),
          refund({ tool: 'create_chargeback' }),
          refund({ callerId: 'other-agent' }),
        ]) {
          const out = await store.request(r);
          expect(out.kind).toBe('pending');
          if (out.kind === 'pending') ids.add(out.approval.id);
        }
        expect(ids.size).toBe(4);
      });

      it('one caller holds at most 20 pending approvals: the 21st parks nothing and says how many wait', async () => {
        store = await open();
        for (let i = 1; i <= MAX_PENDING_PER_CALLER; i++) {
          const out = await store.request(
            refund({ argumentsDigest: `d-${i}`, expiresAt: T0 + (15 + i) * MINUTE }),
          );
          expect(out.kind === 'pending' && out.created).toBe(true);
        }
        expect(await store.request(refund({ argumentsDigest: 'd-21' }))).toEqual({
          kind: 'full',
          pending: MAX_PENDING_PER_CALLER,
          soonestExpiresAt: T0 + 16 * MINUTE,
        });
        expect((await store.listPending('all')).length).toBe(MAX_PENDING_PER_CALLER);
        // A pending one repeated is still itself; another caller has its own allowance.
        expect((await store.request(refund({ argumentsDigest: 'd-3' }))).kind).toBe('pending');
        expect((await store.request(refund({ callerId: 'other-agent' }))).kind).toBe('pending');
        // A decided one, or one that lapsed, frees its place.
        const first = (await store.listPending('all')).find((a) => a.requestedBy === AGENT);
        await store.decide(first!.id, 'decline', FINANCE, FINANCE_SCOPES);
        expect((await store.request(refund({ argumentsDigest: 'd-21' }))).kind).toBe('pending');
        expect((await store.request(refund({ argumentsDigest: 'd-22' }))).kind).toBe('full');
        clock.advance(17 * MINUTE);
        const later = { expiresAt: clock.t + 15 * MINUTE };
        expect((await store.request(refund({ argumentsDigest: 'd-22', ...later }))).kind).toBe(
          'pending',
        );
      });

      it('the pending list shows only the approvals whose scope the caller holds, and never argument values', async () => {
        store = await open();
        const pay = await parked(store, refund());
        await store.request(
          refund({ tool: 'delete_user', scope: 'users:admin', argumentsDigest: 'd-user-3' }),
        );
        const listed = await store.listPending(FINANCE_SCOPES);
        expect(listed.map((a) => a.id)).toEqual([pay.approval.id]);
        expect(Object.keys(listed[0]!).sort()).toEqual(
          [
            'expiresAt',
            'id',
            'kind',
            'message',
            'requestedAt',
            'requestedBy',
            'scope',
            'status',
            'tool',
          ].sort(),
        );
        expect(await store.listPending(AGENT_SCOPES)).toEqual([]);
        expect(await store.listPending(new Set())).toEqual([]);
        expect((await store.listPending('all')).length).toBe(2);
      });

      it('an approval that has expired is no longer listed', async () => {
        store = await open();
        await store.request(refund());
        clock.advance(15 * MINUTE);
        expect(await store.listPending(FINANCE_SCOPES)).toEqual([]);
      });

      it('the requester cannot approve its own call, even holding the scope', async () => {
        store = await open();
        const { approval } = await parked(store, refund());
        const both = new Set([...AGENT_SCOPES, ...FINANCE_SCOPES]);
        expect(await store.decide(approval.id, 'approve', AGENT, both)).toEqual({
          kind: 'refused',
          reason: 'own-request',
          message: 'cannot approve your own call',
        });
        expect((await store.consume(AGENT, 'create_refund', refund().argumentsDigest)).kind).toBe(
          'pending',
        );
      });

      it('a decider without the scope is refused and the approval stays pending', async () => {
        store = await open();
        const { approval } = await parked(store, refund());
        const out = await store.decide(approval.id, 'approve', 'intern', AGENT_SCOPES);
        expect(out).toMatchObject({ kind: 'refused', reason: 'missing-scope' });
        expect((await store.listPending(FINANCE_SCOPES)).map((a) => a.id)).toEqual([approval.id]);
      });

      it('a declined approval makes the repeat declined once, and the next repeat starts over', async () => {
        store = await open();
        const { approval } = await parked(store, refund());
        const decided = await store.decide(approval.id, 'decline', FINANCE, FINANCE_SCOPES);
        expect(decided).toMatchObject({
          kind: 'decided',
          approval: { id: approval.id, status: 'declined', decidedBy: FINANCE },
        });
        expect(await store.listPending(FINANCE_SCOPES)).toEqual([]);
        const consumed = await store.consume(AGENT, 'create_refund', refund().argumentsDigest);
        expect(consumed).toMatchObject({ kind: 'declined', approval: { id: approval.id } });
        expect(await store.consume(AGENT, 'create_refund', refund().argumentsDigest)).toEqual({
          kind: 'none',
        });
      });

      it('an approval past its expiry is expired for the caller and cannot be decided', async () => {
        store = await open();
        const { approval } = await parked(store, refund());
        clock.advance(15 * MINUTE);
        expect(await store.decide(approval.id, 'approve', FINANCE, FINANCE_SCOPES)).toMatchObject({
          kind: 'refused',
          reason: 'expired',
        });
        expect(await store.consume(AGENT, 'create_refund', refund().argumentsDigest)).toEqual({
          kind: 'expired',
        });
        const fresh = await parked(store, refund({ expiresAt: clock.t + 15 * MINUTE }));
        expect(fresh.kind === 'pending' && fresh.created).toBe(true);
        expect(fresh.approval.id).not.toBe(approval.id);
      });

      it('an approved call that lapses unused is expired, not run', async () => {
        store = await open();
        const { approval } = await parked(store, refund());
        await store.decide(approval.id, 'approve', FINANCE, FINANCE_SCOPES);
        clock.advance(15 * MINUTE);
        expect(await store.consume(AGENT, 'create_refund', refund().argumentsDigest)).toEqual({
          kind: 'expired',
        });
      });

      it('an approved call runs exactly once, and then there is nothing on record', async () => {
        store = await open();
        const { approval } = await parked(store, refund());
        const decided = await store.decide(approval.id, 'approve', FINANCE, FINANCE_SCOPES);
        expect(decided).toMatchObject({
          kind: 'decided',
          approval: { status: 'approved', decidedBy: FINANCE },
        });
        // Other arguments are not what was approved.
        expect(await store.consume(AGENT, 'create_refund', 'digest-of-amount-9000')).toEqual({
          kind: 'none',
        });
        expect(
          await store.consume('other-agent', 'create_refund', refund().argumentsDigest),
        ).toEqual({ kind: 'none' });
        const run = await store.consume(AGENT, 'create_refund', refund().argumentsDigest);
        expect(run).toMatchObject({
          kind: 'run',
          approval: { id: approval.id, status: 'approved' },
        });
        expect(await store.consume(AGENT, 'create_refund', refund().argumentsDigest)).toEqual({
          kind: 'none',
        });
      });

      it('a request repeated after approval reports the decision instead of a new approval', async () => {
        store = await open();
        const { approval } = await parked(store, refund());
        await store.decide(approval.id, 'approve', FINANCE, FINANCE_SCOPES);
        expect(await store.request(refund())).toMatchObject({
          kind: 'decided',
          approval: { id: approval.id, status: 'approved' },
        });
      });

      it('a guessed id, a malformed id, a second decision and a spent id are all refused', async () => {
        store = await open();
        expect(
          await store.decide(newApprovalId(), 'approve', FINANCE, FINANCE_SCOPES),
        ).toMatchObject({ kind: 'refused', reason: 'unknown' });
        expect(await store.decide('../../etc', 'approve', FINANCE, FINANCE_SCOPES)).toMatchObject({
          kind: 'refused',
          reason: 'unknown',
        });
        const { approval } = await parked(store, refund());
        expect((await store.decide(approval.id, 'approve', FINANCE, FINANCE_SCOPES)).kind).toBe(
          'decided',
        );
        expect(await store.decide(approval.id, 'decline', 'cfo', FINANCE_SCOPES)).toMatchObject({
          kind: 'refused',
          reason: 'already-decided',
        });
        expect((await store.consume(AGENT, 'create_refund', refund().argumentsDigest)).kind).toBe(
          'run',
        );
        expect(await store.decide(approval.id, 'approve', FINANCE, FINANCE_SCOPES)).toMatchObject({
          kind: 'refused',
          reason: 'unknown',
        });
      });

      // Confirmations on the confirmation page: records of their own kind in the same store.
      const confirmation = (overrides: Partial<ApprovalRequest> = {}): ApprovalRequest =>
        refund({
          kind: 'confirmation',
          tool: 'delete_payment',
          message: 'Delete payment 7?',
          scope: '',
          expiresAt: T0 + 10 * MINUTE,
          ...overrides,
        });

      it('a confirmation is never listed to approvers, even those holding every scope, and has its own key', async () => {
        store = await open();
        const c = await parked(store, confirmation());
        expect(c.approval.kind).toBe('confirmation');
        expect(await store.listPending('all')).toEqual([]);
        // The same caller, tool and arguments as an approval: two records, not one.
        const a = await parked(store, refund({ tool: 'delete_payment' }));
        expect(a.approval.id).not.toBe(c.approval.id);
        expect((await store.listPending('all')).map((x) => x.id)).toEqual([a.approval.id]);
        expect(await store.find(c.approval.id, 'confirmation')).toEqual(c.approval);
        expect(await store.find(c.approval.id, 'approval')).toBeUndefined();
        expect(await store.find(a.approval.id, 'confirmation')).toBeUndefined();
      });

      it('only the caller whose call it is may answer a confirmation; an approver is refused and it stays pending', async () => {
        store = await open();
        const { approval: c } = await parked(store, confirmation());
        for (const [who, scopes] of [
          [FINANCE, 'all'],
          ['other-agent', AGENT_SCOPES],
        ] as const)
          expect(await store.decide(c.id, 'approve', who, scopes, 'confirmation')).toMatchObject({
            kind: 'refused',
            reason: 'other-caller',
          });
        // Nor can the approvals route decide it: there it is no approval at all.
        expect(await store.decide(c.id, 'approve', FINANCE, 'all')).toMatchObject({
          kind: 'refused',
          reason: 'unknown',
        });
        expect((await store.find(c.id, 'confirmation'))?.status).toBe('pending');
        const digest = confirmation().argumentsDigest;
        expect((await store.consume(AGENT, 'delete_payment', digest, 'confirmation')).kind).toBe(
          'pending',
        );
        // Its own caller may, holding no scope at all.
        const decided = await store.decide(c.id, 'approve', AGENT, new Set(), 'confirmation');
        expect(decided).toMatchObject({ kind: 'decided', approval: { status: 'approved' } });
        // An approval is never answered as a confirmation.
        const { approval: a } = await parked(store, refund());
        expect(await store.decide(a.id, 'approve', AGENT, 'all', 'confirmation')).toMatchObject({
          kind: 'refused',
          reason: 'unknown',
        });
      });

      it('a confirmed confirmation runs once, a declined one is declined once, a lapsed one is expired', async () => {
        store = await open();
        const consume = (digest: string) =>
          store.consume(AGENT, 'delete_payment', digest, 'confirmation');
        const yes = await parked(store, confirmation({ argumentsDigest: 'yes' }));
        const no = await parked(store, confirmation({ argumentsDigest: 'no' }));
        await parked(store, confirmation({ argumentsDigest: 'late' }));
        await store.decide(yes.approval.id, 'approve', AGENT, new Set(), 'confirmation');
        await store.decide(no.approval.id, 'decline', AGENT, new Set(), 'confirmation');
        expect((await consume('yes')).kind).toBe('run');
        expect((await consume('yes')).kind).toBe('none');
        expect((await consume('no')).kind).toBe('declined');
        expect((await consume('no')).kind).toBe('none');
        // The approval of the same caller, tool and arguments is another record: untouched.
        expect((await store.consume(AGENT, 'delete_payment', 'yes')).kind).toBe('none');
        // Run, it is gone: the page finds nothing to show.
        expect(await store.find(yes.approval.id, 'confirmation')).toBeUndefined();
        clock.advance(10 * MINUTE);
        expect((await consume('late')).kind).toBe('expired');
        expect((await consume('late')).kind).toBe('none');
      });

      it('a caller holds at most 20 waiting confirmations, counted apart from its approvals', async () => {
        store = await open();
        for (let i = 1; i <= MAX_PENDING_PER_CALLER; i++)
          expect((await store.request(refund({ argumentsDigest: `a-${i}` }))).kind).toBe('pending');
        for (let i = 1; i <= MAX_PENDING_PER_CALLER; i++)
          expect((await store.request(confirmation({ argumentsDigest: `c-${i}` }))).kind).toBe(
            'pending',
          );
        expect(await store.request(confirmation({ argumentsDigest: 'c-21' }))).toEqual({
          kind: 'full',
          pending: MAX_PENDING_PER_CALLER,
          soonestExpiresAt: T0 + 10 * MINUTE,
        });
      });
    },
  );
}

describe.skipIf(
  skipBecause(
    NO_SHARED_REDIS !== undefined,
    `consent-approvals.test.ts, Redis: ${NO_SHARED_REDIS}`,
  ),
)('approvals shared through one real Redis', () => {
  const clock = new TestClock();
  const openReplica = async (prefix: string): Promise<ApprovalStore> => {
    const s = await createRedisApprovalStore(SHARED_REDIS!, { now: clock.now, prefix });
    opened.push(s);
    return s;
  };

  it('two replicas consuming one approval at once get exactly one run between them', async () => {
    const prefix = freshPrefix();
    const [a, b] = await Promise.all([openReplica(prefix), openReplica(prefix)]);
    for (let round = 0; round < 20; round++) {
      const req = refund({ argumentsDigest: `race-${round}` });
      const { approval } = await parked(a, req);
      expect((await b.decide(approval.id, 'approve', FINANCE, FINANCE_SCOPES)).kind).toBe(
        'decided',
      );
      const outcomes = await Promise.all(
        [a, b, a, b].map((s) => s.consume(AGENT, req.tool, req.argumentsDigest)),
      );
      expect(outcomes.filter((o) => o.kind === 'run')).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === 'none')).toHaveLength(3);
    }
  });

  it('two replicas requesting the same call at once park one approval between them', async () => {
    const prefix = freshPrefix();
    const [a, b] = await Promise.all([openReplica(prefix), openReplica(prefix)]);
    const outs = await Promise.all([a, b, a, b].map((s) => parked(s, refund())));
    expect(new Set(outs.map((o) => o.approval.id)).size).toBe(1);
    expect(outs.filter((o) => o.kind === 'pending' && o.created)).toHaveLength(1);
  });

  it('a new store instance on the same Redis (a restart) still sees the pending approval and its decision', async () => {
    const prefix = freshPrefix();
    const before = await openReplica(prefix);
    const { approval } = await parked(before, refund());
    await before.close();
    const after = await openReplica(prefix);
    expect((await after.listPending(FINANCE_SCOPES)).map((x) => x.id)).toEqual([approval.id]);
    expect(await after.request(refund())).toMatchObject({
      kind: 'pending',
      created: false,
      approval: { id: approval.id },
    });
    await after.decide(approval.id, 'approve', FINANCE, FINANCE_SCOPES);
    await after.close();
    const again = await openReplica(prefix);
    expect((await again.consume(AGENT, 'create_refund', refund().argumentsDigest)).kind).toBe(
      'run',
    );
  });
});

describe('approvals when Redis does not answer', () => {
  it('every operation rejects instead of answering, so no call runs unapproved', async () => {
    // Port 1 on loopback refuses at once: nothing listens there.
    const store = await createRedisApprovalStore('redis://127.0.0.1:1', { connectTimeoutMs: 200 });
    opened.push(store);
    await expect(store.consume(AGENT, 'create_refund', 'd')).rejects.toThrow();
    await expect(store.request(refund())).rejects.toThrow();
    await expect(
      store.decide(newApprovalId(), 'approve', FINANCE, FINANCE_SCOPES),
    ).rejects.toThrow();
  });
});

describe('approval ids', () => {
  it('never start with - or _, so an id pasted on a command line is never read as an option', () => {
    const ids = Array.from({ length: 2000 }, () => newApprovalId());
    expect(ids.filter((id) => /^[-_]/.test(id))).toEqual([]);
    for (const id of ids.slice(0, 50)) expect(isApprovalIdShape(id)).toBe(true);
    expect(isApprovalIdShape('-g9DuF6AI10jBRNOdSlTig')).toBe(false);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
