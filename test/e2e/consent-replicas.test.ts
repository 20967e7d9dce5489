/**
 * Issue 29 across replicas: two gateways sharing the run's Redis (`limits redis-env`) and
 * the sealing key (`access confirm-key-env`) take each other's retries and approvals — a
 * confirmation asked on one is answered on the other and runs once, an approval asked on
 * one is decided on the other — and a restarted gateway still holds what was pending.
 * Without a shared key the states do not open on another process, which is why the
 * spec asks for one.
 *
 * The replicas are in-process servers, each with its own stores and Redis clients, except
 * where the key is per process: that case needs a second process (module state would
 * be shared otherwise). Redis keys are the gateway's own (random ids, expiring with
 * their approval or state); nothing is flushed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENT_KEY,
  approvalOf,
  askDeleteConfirm,
  askRefundByUrl,
  bearer,
  CONFIRM_KEY,
  consentSpec,
  decide,
  deleteConfirmedRetry,
  FINANCE_KEY,
  KEYS_ENV,
  listApprovals,
  refundUrlRetry,
  restRefund,
  resultText,
} from '../helpers/consent.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { serveProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { redisSkipReason, redisUrl } from '../helpers/needs-services.js';
import {
  findRedisServer,
  NO_REDIS_SERVER,
  startRedisServer,
  type RedisServer,
} from '../helpers/redis-server.js';
import { skipBecause } from '../helpers/skip-reason.js';
import { okJson, type Upstream } from '../helpers/upstream.js';
import { useUpstream } from '../helpers/upstream-fixtures.js';

const SHARED_REDIS = redisUrl();
const NO_SHARED_REDIS = redisSkipReason();
const NO_REDIS_BINARY = findRedisServer() ? undefined : NO_REDIS_SERVER;
const LIMITS = 'limits redis-env="REDIS_URL"';

let upstream: Upstream;

useUpstream(okJson, (u) => (upstream = u));

const sent = (): string[] => upstream.requests.map((r) => `${r.method} ${r.path}`);

describe.skipIf(
  skipBecause(NO_SHARED_REDIS !== undefined, `consent-replicas.test.ts, Redis: ${NO_SHARED_REDIS}`),
)('two replicas sharing Redis and CONFIRM_KEY', () => {
  const env = (): Record<string, string> => ({
    ...KEYS_ENV,
    CONFIRM_KEY,
    REDIS_URL: SHARED_REDIS!,
  });
  const spec = (): string => consentSpec(upstream.url, { extra: LIMITS });
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    [a, b] = await Promise.all([
      startGateway(spec(), { env: env() }),
      startGateway(spec(), { env: env() }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('runs once a confirmation asked on A and answered on B; the same retry on A is then spent', async () => {
    const state = await askDeleteConfirm(a.url, AGENT_KEY, 501);
    const retry = (url: string) => deleteConfirmedRetry(url, AGENT_KEY, 501, state);
    expect(resultText((await retry(b.url)).json).isError).toBeFalsy();
    const replay = resultText((await retry(a.url)).json);
    expect(replay.isError).toBe(true);
    expect(replay.text).toMatch(/^CONFIRMATION_INVALID: .*already been used/);
    expect(sent()).toEqual(['DELETE /payments/501']);
  });

  it('lists on B an approval asked on A, decides it there, and runs the repeat on A once; B then asks anew', async () => {
    const args = { payment: 502, amount: 40 };
    const first = await restRefund(a.url, AGENT_KEY, args);
    expect(first.status).toBe(202);
    const { id } = approvalOf(first.json);
    // Repeating on B while pending finds the same approval.
    expect(approvalOf((await restRefund(b.url, AGENT_KEY, args)).json).id).toBe(id);
    expect((await listApprovals(b.url, FINANCE_KEY)).find((x) => x.id === id)).toMatchObject({
      status: 'pending',
      message: 'Refund 40 cents on payment 502',
    });
    expect((await decide(b.url, FINANCE_KEY, id, 'approve')).status).toBe(200);
    // Decided once, wherever: A refuses a second decision.
    expect((await decide(a.url, FINANCE_KEY, id, 'approve')).status).toBe(409);

    expect((await restRefund(a.url, AGENT_KEY, args)).status).toBe(200);
    const after = await restRefund(b.url, AGENT_KEY, args);
    expect(after.status).toBe(202);
    expect(approvalOf(after.json).id).not.toBe(id);
    expect(sent()).toEqual(['POST /payments/502/refunds']);
  });

  it('takes on B the URL retry of an approval asked on A and approved there', async () => {
    const args = { payment: 503, amount: 41 };
    const asked = await askRefundByUrl(a.url, AGENT_KEY, args);
    expect((await decide(a.url, FINANCE_KEY, asked.id, 'approve')).status).toBe(200);
    const retry = await refundUrlRetry(b.url, AGENT_KEY, args, asked.requestState);
    expect(resultText(retry.json).isError).toBeFalsy();
    expect(sent()).toEqual(['POST /payments/503/refunds']);
  });

  it('runs once when the same confirmation retry reaches A and B at the same time', async () => {
    const state = await askDeleteConfirm(a.url, AGENT_KEY, 506);
    const retry = (url: string) => deleteConfirmedRetry(url, AGENT_KEY, 506, state);
    const answers = (await Promise.all([retry(a.url), retry(b.url)])).map((r) =>
      resultText(r.json),
    );
    expect(answers.filter((x) => !x.isError)).toHaveLength(1);
    expect(answers.filter((x) => /^CONFIRMATION_INVALID: /.test(x.text))).toHaveLength(1);
    expect(sent()).toEqual(['DELETE /payments/506']);
  });

  it('runs an approved call once when its repeat reaches A and B at the same time', async () => {
    const args = { payment: 507, amount: 45 };
    const { id } = approvalOf((await restRefund(a.url, AGENT_KEY, args)).json);
    expect((await decide(b.url, FINANCE_KEY, id, 'approve')).status).toBe(200);
    const statuses = (
      await Promise.all([restRefund(a.url, AGENT_KEY, args), restRefund(b.url, AGENT_KEY, args)])
    ).map((r) => r.status);
    expect(statuses.sort()).toEqual([200, 202]);
    expect(sent()).toEqual(['POST /payments/507/refunds']);
  });

  it('keeps a pending approval through a restart: asked on C, C restarted, approved and run on the new C', async () => {
    const args = { payment: 504, amount: 42 };
    const c = await startGateway(spec(), { env: env() });
    let id: string;
    try {
      id = approvalOf((await restRefund(c.url, AGENT_KEY, args)).json).id;
    } finally {
      await c.close();
    }
    const c2 = await startGateway(spec(), { env: env() });
    try {
      expect((await listApprovals(c2.url, FINANCE_KEY)).map((x) => x.id)).toContain(id);
      expect((await decide(c2.url, FINANCE_KEY, id, 'approve')).status).toBe(200);
      expect((await restRefund(c2.url, AGENT_KEY, args)).status).toBe(200);
    } finally {
      await c2.close();
    }
    expect(sent()).toEqual(['POST /payments/504/refunds']);
  });

  it('runs on a restarted replica the repeat of a call approved before the restart', async () => {
    const args = { payment: 505, amount: 43 };
    const c = await startGateway(spec(), { env: env() });
    try {
      const { id } = approvalOf((await restRefund(c.url, AGENT_KEY, args)).json);
      expect((await decide(b.url, FINANCE_KEY, id, 'approve')).status).toBe(200);
    } finally {
      await c.close();
    }
    const c2 = await startGateway(spec(), { env: env() });
    try {
      expect((await restRefund(c2.url, AGENT_KEY, args)).status).toBe(200);
    } finally {
      await c2.close();
    }
    expect(sent()).toEqual(['POST /payments/505/refunds']);
  });
});

describe.skipIf(
  skipBecause(NO_SHARED_REDIS !== undefined, `consent-replicas.test.ts, Redis: ${NO_SHARED_REDIS}`),
)('two replica processes sharing Redis but no confirm-key-env', () => {
  let dir: string;
  let a: TestGateway;
  let b: GatewayProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcpb-consent-replicas-'));
    const text = consentSpec(upstream.url, { extra: LIMITS, keyEnv: false });
    const file = join(dir, 'consent.mcp.kdl');
    writeFileSync(file, text);
    const env = { ...KEYS_ENV, REDIS_URL: SHARED_REDIS! };
    [a, b] = await Promise.all([startGateway(text, { env }), serveProcess(file, env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses on B a confirmation state sealed by A (CONFIRMATION_INVALID, nothing sent), which A itself takes; both logs say why', async () => {
    const retry = (url: string, requestState: string) =>
      deleteConfirmedRetry(url, AGENT_KEY, 601, requestState);
    const state = await askDeleteConfirm(a.url, AGENT_KEY, 601);
    const onB = resultText((await retry(b.url, state)).json);
    expect(onB.isError).toBe(true);
    expect(onB.text).toMatch(/^CONFIRMATION_INVALID: .*not sealed by this gateway/);
    expect(upstream.requests).toEqual([]);

    expect(resultText((await retry(a.url, state)).json).isError).toBeFalsy();
    expect(sent()).toEqual(['DELETE /payments/601']);
    for (const log of [a.logs(), b.log()])
      expect(log).toContain('a retry must reach the same replica');
  });

  it('still shares approvals through Redis: the key only seals confirmation states', async () => {
    const args = { payment: 602, amount: 44 };
    const { id } = approvalOf((await restRefund(a.url, AGENT_KEY, args)).json);
    expect((await decide(b.url, FINANCE_KEY, id, 'approve')).status).toBe(200);
    expect((await restRefund(b.url, AGENT_KEY, args)).status).toBe(200);
    expect(sent()).toEqual(['POST /payments/602/refunds']);
  });
});

describe.skipIf(
  skipBecause(
    NO_REDIS_BINARY !== undefined,
    `consent-replicas.test.ts, Redis stopped: ${NO_REDIS_BINARY}`,
  ),
)('a gateway whose Redis has stopped', () => {
  let redis: RedisServer | undefined;
  let gw: TestGateway;

  beforeAll(async () => {
    // A private server of this test's own: it is the only one stopped.
    redis = await startRedisServer();
    gw = await startGateway(consentSpec(upstream.url, { extra: LIMITS }), {
      env: { ...KEYS_ENV, CONFIRM_KEY, REDIS_URL: redis.url },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await redis?.stop();
  });

  it('fails closed: an approved call, a confirmed retry and the approvals API are CONSENT_UNAVAILABLE (503), and nothing is sent', async () => {
    const args = { payment: 701, amount: 46 };
    const { id } = approvalOf((await restRefund(gw.url, AGENT_KEY, args)).json);
    expect((await decide(gw.url, FINANCE_KEY, id, 'approve')).status).toBe(200);
    await redis!.stop();

    const res = await restRefund(gw.url, AGENT_KEY, args);
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ error: { code: 'CONSENT_UNAVAILABLE' } });
    // A confirmation is asked without the store, but its yes cannot be spent: refused too.
    const state = await askDeleteConfirm(gw.url, AGENT_KEY, 702);
    const confirm = await deleteConfirmedRetry(gw.url, AGENT_KEY, 702, state);
    expect(resultText(confirm.json).text).toMatch(/^CONSENT_UNAVAILABLE: /);

    // The approvals API says the same, not an internal error.
    const listing = await fetch(`${gw.url}/api/approvals`, { headers: bearer(FINANCE_KEY) });
    expect(listing.status).toBe(503);
    expect(await listing.json()).toMatchObject({ error: { code: 'CONSENT_UNAVAILABLE' } });
    const decision = await decide(gw.url, FINANCE_KEY, id, 'decline');
    expect(decision.status).toBe(503);
    expect(decision.headers.get('retry-after')).toBe('1');
    expect(decision.json).toMatchObject({ error: { code: 'CONSENT_UNAVAILABLE' } });
    expect(upstream.requests).toEqual([]);
  });
});
