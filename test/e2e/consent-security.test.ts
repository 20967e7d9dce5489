/**
 * Issue 29, the attacks on `confirm` and `approve`, each against the real gateway: a
 * requestState forged, replayed, stolen by another caller, carried to other arguments or
 * another tool, or left out (all CONFIRMATION_INVALID, nothing sent); and the approvals
 * API decided by the wrong person (the requester, a caller without the scope, a guess, a
 * second decision) or by a browser tricked into it (a form post, a foreign Origin). The
 * retries are written out as JSON-RPC, as a hostile client would send them.
 */
import { describe, expect, it } from 'vitest';
import {
  ACCEPT_CONFIRM,
  AGENT_KEY,
  approvalOf,
  askRefundByUrl,
  BOTH_KEY,
  bearer,
  CONFIRM_KEY,
  decide,
  FINANCE_KEY,
  FORM_CAPS,
  inputRequiredOf,
  KEYS_ENV,
  listApprovals,
  OTHER_AGENT_KEY,
  postModernCall,
  refundUrlRetry,
  restRefund,
  resultText,
  URL_CAPS,
  useConsentGateway,
} from '../helpers/consent.js';
import type { TestGateway } from '../helpers/gateway.js';
import type { Upstream } from '../helpers/upstream.js';

let upstream: Upstream;
let gw: TestGateway;

useConsentGateway({}, (s) => ({ upstream, gw } = s));

/** The confirmation's requestState for deleting `payment`, as AGENT_KEY was asked it. */
async function confirmState(payment: number, key = AGENT_KEY): Promise<string> {
  const asked = await postModernCall(
    gw.url,
    key,
    'delete_payment',
    { payment },
    {
      capabilities: FORM_CAPS,
    },
  );
  expect(asked.status).toBe(200);
  return inputRequiredOf(asked.json).requestState;
}

/** The retry of the confirmation, answered yes. */
function confirmRetry(
  payment: unknown,
  requestState: unknown,
  { key = AGENT_KEY, tool = 'delete_payment', inputResponses = ACCEPT_CONFIRM as unknown } = {},
): ReturnType<typeof postModernCall> {
  return postModernCall(
    gw.url,
    key,
    tool,
    { payment },
    {
      capabilities: FORM_CAPS,
      inputResponses,
      requestState,
    },
  );
}

async function expectInvalid(res: Awaited<ReturnType<typeof postModernCall>>): Promise<void> {
  expect(res.status).toBe(200);
  const { isError, text } = resultText(res.json);
  expect(isError).toBe(true);
  expect(text).toMatch(/^CONFIRMATION_INVALID: /);
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64url');
const unb64 = (s: string): string => Buffer.from(s, 'base64url').toString('utf8');

describe('requestState attacks', () => {
  it('a requestState whose payload was altered (its expiry pushed out, the MAC kept) is CONFIRMATION_INVALID, nothing sent', async () => {
    const state = await confirmState(11);
    const [version, payload, mac] = state.split('.');
    const fields = JSON.parse(unb64(payload!)) as Record<string, unknown>;
    // Push the expiry out by a day: a client may read its state but not change it.
    const altered = `${version}.${b64(JSON.stringify({ ...fields, e: (fields.e as number) + 86_400_000 }))}.${mac}`;
    await expectInvalid(await confirmRetry(11, altered));
    expect(upstream.requests).toEqual([]);
    expect(gw.logs()).toContain('"reason":"forged"');
  });

  it('a requestState with a forged MAC is CONFIRMATION_INVALID, nothing sent', async () => {
    const state = await confirmState(12);
    const [version, payload, mac] = state.split('.');
    const flipped = `${mac!.slice(0, -2)}${mac!.endsWith('AA') ? 'BB' : 'AA'}`;
    await expectInvalid(await confirmRetry(12, `${version}.${payload}.${flipped}`));
    await expectInvalid(await confirmRetry(12, 'c1.e30.AAAA'));
    await expectInvalid(await confirmRetry(12, { not: 'a string' }));
    expect(upstream.requests).toEqual([]);
  });

  it('a replayed retry (the same requestState sent twice) runs once; the second is CONFIRMATION_INVALID', async () => {
    const state = await confirmState(13);
    const first = await confirmRetry(13, state);
    expect(resultText(first.json).isError).toBeFalsy();
    const replay = await confirmRetry(13, state);
    await expectInvalid(replay);
    expect(resultText(replay.json).text).toContain('already been used');
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /payments/13']);
  });

  it('a declined confirmation’s requestState cannot be replayed with a yes', async () => {
    const state = await confirmState(14);
    const declined = await confirmRetry(14, state, {
      inputResponses: { confirm: { action: 'decline' } },
    });
    expect(resultText(declined.json).text).toMatch(/^CONFIRMATION_DECLINED: /);
    await expectInvalid(await confirmRetry(14, state));
    expect(upstream.requests).toEqual([]);
  });

  it('another caller’s requestState (another api key) is CONFIRMATION_INVALID and does not burn it for its owner', async () => {
    const state = await confirmState(15);
    await expectInvalid(await confirmRetry(15, state, { key: OTHER_AGENT_KEY }));
    expect(upstream.requests).toEqual([]);
    const owner = await confirmRetry(15, state);
    expect(resultText(owner.json).isError).toBeFalsy();
    expect(upstream.requests).toHaveLength(1);
  });

  it('another caller replaying an approval’s URL retry is CONFIRMATION_INVALID and does not take the approved call', async () => {
    const args = { payment: 22, amount: 4 };
    const asked = await askRefundByUrl(gw.url, AGENT_KEY, args);
    expect((await decide(gw.url, FINANCE_KEY, asked.id, 'approve')).status).toBe(200);
    const retry = (key: string) => refundUrlRetry(gw.url, key, args, asked.requestState);
    await expectInvalid(await retry(OTHER_AGENT_KEY));
    expect(upstream.requests).toEqual([]);
    expect(resultText((await retry(AGENT_KEY)).json).isError).toBeFalsy();
    expect(upstream.requests).toHaveLength(1);
  });

  it('a retry with changed arguments is CONFIRMATION_INVALID, nothing sent', async () => {
    const state = await confirmState(16);
    await expectInvalid(await confirmRetry(17, state));
    expect(upstream.requests).toEqual([]);
    expect(gw.logs()).toContain('"reason":"mismatch"');
  });

  it('a state issued for one tool is CONFIRMATION_INVALID on another with the same arguments', async () => {
    const state = await confirmState(18);
    await expectInvalid(await confirmRetry(18, state, { tool: 'update_payment' }));
    expect(upstream.requests).toEqual([]);
  });

  it('a retry without requestState is CONFIRMATION_INVALID, nothing sent', async () => {
    await confirmState(19);
    await expectInvalid(await confirmRetry(19, undefined));
    expect(gw.logs()).toContain('"reason":"missing"');
    // The approval's URL retry too: an answer without the state is refused, nothing parked runs.
    await expectInvalid(
      await postModernCall(
        gw.url,
        AGENT_KEY,
        'create_refund',
        { payment: 19, amount: 1 },
        {
          capabilities: URL_CAPS,
          inputResponses: { approve: { action: 'accept' } },
        },
      ),
    );
    expect(upstream.requests).toEqual([]);
  });

  it('a confirmation’s requestState cannot stand in for an approval’s URL retry', async () => {
    const state = await confirmState(20);
    const res = await postModernCall(
      gw.url,
      AGENT_KEY,
      'update_payment',
      { payment: 20 },
      {
        capabilities: { elicitation: { form: {}, url: {} } },
        inputResponses: { approve: { action: 'accept' } },
        requestState: state,
      },
    );
    await expectInvalid(res);
    expect(upstream.requests).toEqual([]);
  });

  it('an approval’s URL retry replayed after it ran is CONFIRMATION_INVALID, parking no new approval and sending nothing more', async () => {
    const args = { payment: 21, amount: 2 };
    const asked = await askRefundByUrl(gw.url, AGENT_KEY, args);
    expect((await decide(gw.url, FINANCE_KEY, asked.id, 'approve')).status).toBe(200);
    const retry = () => refundUrlRetry(gw.url, AGENT_KEY, args, asked.requestState);
    expect(resultText((await retry()).json).isError).toBeFalsy();
    const before = (await listApprovals(gw.url, FINANCE_KEY)).length;
    const replay = resultText((await retry()).json);
    expect(replay.isError).toBe(true);
    expect(replay.text).toMatch(/^CONFIRMATION_INVALID: .*used or is gone/);
    expect((await listApprovals(gw.url, FINANCE_KEY)).length).toBe(before);
    expect(upstream.requests).toHaveLength(1);
  });
});

describe('approvals API attacks', () => {
  async function pendingRefund(key: string, payment: number): Promise<string> {
    const res = await restRefund(gw.url, key, { payment, amount: 3 });
    expect(res.status).toBe(202);
    return approvalOf(res.json).id;
  }
  const stillPending = async (id: string): Promise<boolean> =>
    (await listApprovals(gw.url, FINANCE_KEY)).some((a) => a.id === id && a.status === 'pending');

  it('a caller approving its own call, even holding the scope, is 403 APPROVAL_OWN_CALL', async () => {
    const id = await pendingRefund(BOTH_KEY, 31);
    const own = (await listApprovals(gw.url, BOTH_KEY)).find((a) => a.id === id);
    expect(own).toMatchObject({ own: true });
    const res = await decide(gw.url, BOTH_KEY, id, 'approve');
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ error: { code: 'APPROVAL_OWN_CALL' } });
    expect(await stillPending(id)).toBe(true);
    expect((await restRefund(gw.url, BOTH_KEY, { payment: 31, amount: 3 })).status).toBe(202);
    expect(upstream.requests).toEqual([]);
  });

  it('a guessed approval id is 404 NOT_FOUND', async () => {
    const res = await decide(gw.url, FINANCE_KEY, 'AAAAAAAAAAAAAAAAAAAAAA', 'approve');
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('deciding an approval twice is 409 APPROVAL_DECIDED, and the first decision stands', async () => {
    const id = await pendingRefund(AGENT_KEY, 32);
    expect((await decide(gw.url, FINANCE_KEY, id, 'decline')).status).toBe(200);
    const again = await decide(gw.url, FINANCE_KEY, id, 'approve');
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ error: { code: 'APPROVAL_DECIDED' } });
    const res = await restRefund(gw.url, AGENT_KEY, { payment: 32, amount: 3 });
    expect(res.json).toMatchObject({ error: { code: 'APPROVAL_DECLINED' } });
    expect(upstream.requests).toEqual([]);
  });

  it('a caller without the approving scope lists none of its approvals, and deciding one is 403 INSUFFICIENT_SCOPE', async () => {
    const id = await pendingRefund(AGENT_KEY, 33);
    expect(await listApprovals(gw.url, OTHER_AGENT_KEY)).toEqual([]);
    expect(await listApprovals(gw.url, AGENT_KEY)).toEqual([]);
    const res = await decide(gw.url, OTHER_AGENT_KEY, id, 'approve');
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ error: { code: 'INSUFFICIENT_SCOPE' } });
    expect(await stillPending(id)).toBe(true);
  });

  it('an anonymous decision is 401 and decides nothing', async () => {
    const id = await pendingRefund(AGENT_KEY, 34);
    const res = await fetch(`${gw.url}/api/approvals/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"decision":"approve"}',
    });
    expect(res.status).toBe(401);
    expect(await stillPending(id)).toBe(true);
  });

  it('a cross-site form post (text/plain or urlencoded body) is 415 and decides nothing', async () => {
    const id = await pendingRefund(AGENT_KEY, 35);
    for (const [type, body] of [
      ['text/plain', '{"decision":"approve"}'],
      ['application/x-www-form-urlencoded', 'decision=approve'],
      [
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="decision"\r\n\r\napprove\r\n--x--\r\n',
      ],
    ] as const) {
      const res = await fetch(`${gw.url}/api/approvals/${id}`, {
        method: 'POST',
        headers: { 'content-type': type, ...bearer(FINANCE_KEY) },
        body,
      });
      expect(res.status, type).toBe(415);
    }
    expect(await stillPending(id)).toBe(true);
  });

  it('a decision from a page of a foreign Origin is 403 FORBIDDEN_ORIGIN and decides nothing', async () => {
    const id = await pendingRefund(AGENT_KEY, 36);
    const res = await decide(gw.url, FINANCE_KEY, id, 'approve', {
      origin: 'https://evil.example',
    });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ error: { code: 'FORBIDDEN_ORIGIN' } });
    expect(await stillPending(id)).toBe(true);
  });

  it('a decision from the gateway’s own page (its Origin) is taken: the Origin check refuses only foreign ones', async () => {
    const id = await pendingRefund(AGENT_KEY, 38);
    const res = await decide(gw.url, FINANCE_KEY, id, 'approve', { origin: gw.url });
    expect(res.status).toBe(200);
    expect(await stillPending(id)).toBe(false);
  });

  it('a decision other than approve or decline is 400 INVALID_ARGUMENTS', async () => {
    const id = await pendingRefund(AGENT_KEY, 37);
    const res = await decide(gw.url, FINANCE_KEY, id, 'yes' as 'approve');
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
    expect(await stillPending(id)).toBe(true);
  });
});

describe('audit lines', () => {
  it('say every step with caller, tool and digest, and never an argument value or a key', async () => {
    const amount = 918_273_645;
    const args = { payment: 41, amount };
    const id = approvalOf((await restRefund(gw.url, AGENT_KEY, args)).json).id;
    expect((await decide(gw.url, FINANCE_KEY, id, 'approve')).status).toBe(200);
    expect((await restRefund(gw.url, AGENT_KEY, args)).status).toBe(200);
    const state = await confirmState(42);
    await confirmRetry(42, state);

    const lines = gw
      .logs()
      .split('\n')
      .filter((l) => l.includes('"audit":"consent"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const mine = lines.filter((l) => l.approvalId === id);
    expect(mine.map((l) => l.event)).toEqual([
      'approval_requested',
      'approval_approved',
      'approval_run',
    ]);
    expect(mine[0]).toMatchObject({
      tool: 'create_refund',
      caller: expect.stringContaining('AGENT_KEY'),
      argumentsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(mine[1]).toMatchObject({ decidedBy: expect.stringContaining('FINANCE_KEY') });

    // Neither in the audit lines nor anywhere else in the log.
    const all = gw.logs();
    expect(all).not.toContain(String(amount));
    expect(all).not.toContain(state);
    for (const secret of [...Object.values(KEYS_ENV), CONFIRM_KEY])
      expect(all).not.toContain(secret);
  });
});
