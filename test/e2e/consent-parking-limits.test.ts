/**
 * Issue 37: one caller could park approvals without end. 4,000 parked requests made the
 * approver's list 2.2 MB, and the grant's `rate-limit "5/m"` did not count them, as the
 * consent step runs before it. Parking now counts against the rate limit, and one caller
 * holds at most 20 pending approvals (RATE_LIMITED beyond, nothing parked), with the
 * approvals in memory and in the run's Redis alike. Each gateway's callers are named
 * afresh (their key variables), so Redis keys of earlier runs never count here.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalOf, bearer, decide, listApprovals } from '../helpers/consent.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { redisSkipReason, redisUrl } from '../helpers/needs-services.js';
import { skipBecause } from '../helpers/skip-reason.js';
import { okJson, type Upstream } from '../helpers/upstream.js';
import { useUpstream } from '../helpers/upstream-fixtures.js';

const SHARED_REDIS = redisUrl();
const NO_SHARED_REDIS = redisSkipReason();
const MAX_PENDING = 20;

const STORES = [
  { name: 'in memory', limits: '', unavailable: undefined },
  {
    name: 'in Redis',
    limits: 'limits redis-env="REDIS_URL"',
    unavailable: NO_SHARED_REDIS && `consent-parking-limits.test.ts, Redis: ${NO_SHARED_REDIS}`,
  },
] as const;

/** A refund grant without a rate limit and a tagging grant allowing 5 calls a minute. */
function spec(upstream: string, limits: string, agentEnv: string, otherEnv: string): string {
  return `
wrap "consent-parking" version="1.0.0"
base-url "${upstream}"
${limits}
access {
    api-key env="${agentEnv}" scopes="payments:write"
    api-key env="${otherEnv}" scopes="payments:write"
    api-key env="FINANCE_KEY" scopes="payments:approve"
}
can create refund {
    path "/payments/{payment}/refunds" { payment "integer" min=1 }
    body { amount "integer" required=#true min=1 }
    approve "Refund {amount} cents on payment {payment}" by="payments:approve" expires="2m"
}
can create tag {
    path "/payments/{payment}/tags" { payment "integer" min=1 }
    approve "Tag payment {payment}" by="payments:approve" expires="2m"
    rate-limit "5/m"
}
`;
}

const AGENT = 'parking-agent-key-41c9';
const OTHER = 'parking-other-key-7e02';
const FINANCE = 'parking-finance-key-d35a';

let upstream: Upstream;

useUpstream(okJson, (u) => (upstream = u));

for (const store of STORES) {
  describe.skipIf(skipBecause(store.unavailable !== undefined, store.unavailable ?? ''))(
    `parking approvals, ${store.name}`,
    () => {
      let gw: TestGateway;
      const run = randomBytes(4).toString('hex').toUpperCase();
      const agentEnv = `PARKING_AGENT_${run}`;
      const otherEnv = `PARKING_OTHER_${run}`;

      beforeAll(async () => {
        gw = await startGateway(spec(upstream.url, store.limits, agentEnv, otherEnv), {
          env: {
            [agentEnv]: AGENT,
            [otherEnv]: OTHER,
            FINANCE_KEY: FINANCE,
            ...(SHARED_REDIS && { REDIS_URL: SHARED_REDIS }),
          },
        });
      });
      afterAll(async () => {
        await gw?.close();
      });

      const refund = (key: string, amount: number) =>
        postJson(`${gw.url}/api/create_refund`, { payment: 7, amount }, bearer(key));
      // The other caller's: the cap counts a caller's approvals of every grant together.
      const tag = (payment: number) =>
        postJson(`${gw.url}/api/create_tag`, { payment }, bearer(OTHER));
      const mine = async (): Promise<string[]> =>
        (await listApprovals(gw.url, FINANCE))
          .filter((a) => a.requested_by.includes(agentEnv) && a.tool === 'create_refund')
          .map((a) => a.id);

      it('one caller holds at most 20 pending approvals; the 21st is RATE_LIMITED and parks nothing', async () => {
        const ids: string[] = [];
        for (let amount = 1; amount <= MAX_PENDING; amount++) {
          const parked = await refund(AGENT, amount);
          expect(parked.status, `refund ${amount}`).toBe(202);
          ids.push(approvalOf(parked.json).id);
        }
        const over = await refund(AGENT, MAX_PENDING + 1);
        expect(over.status).toBe(429);
        const error = (over.json as { error: { code: string; message: string } }).error;
        expect(error.code).toBe('RATE_LIMITED');
        expect(error.message).toContain(`${MAX_PENDING} approvals pending`);
        expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
        expect((await mine()).sort()).toEqual([...ids].sort());
        // A pending call repeated is still its own approval; another caller parks its own.
        expect(approvalOf((await refund(AGENT, 3)).json).id).toBe(ids[2]);
        expect((await refund(OTHER, MAX_PENDING + 1)).status).toBe(202);
        // A decision frees a place.
        expect((await decide(gw.url, FINANCE, ids[0]!, 'decline')).status).toBe(200);
        expect((await refund(AGENT, MAX_PENDING + 1)).status).toBe(202);
        expect((await refund(AGENT, MAX_PENDING + 2)).status).toBe(429);
        expect(upstream.requests).toEqual([]);
      });

      it('parking counts against the grant’s rate limit, and the approved call is not counted again', async () => {
        const ids: string[] = [];
        for (let payment = 1; payment <= 5; payment++) {
          const parked = await tag(payment);
          expect(parked.status, `tag ${payment}`).toBe(202);
          ids.push(approvalOf(parked.json).id);
        }
        const sixth = await tag(6);
        expect(sixth.status).toBe(429);
        expect((sixth.json as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
        expect(
          (await listApprovals(gw.url, FINANCE)).filter(
            (a) => a.tool === 'create_tag' && a.requested_by.includes(otherEnv),
          ),
        ).toHaveLength(5);
        // Repeating a parked call parks nothing new, so it is not refused.
        expect(approvalOf((await tag(2)).json).id).toBe(ids[1]);
        // Its park was its count: approved, the call runs within the same window.
        expect((await decide(gw.url, FINANCE, ids[0]!, 'approve')).status).toBe(200);
        expect((await tag(1)).status).toBe(200);
        expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
          'POST /payments/1/tags',
        ]);
      });
    },
  );
}
