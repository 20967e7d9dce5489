/**
 * Issue 29: a person's wait is no call's wait. The gateway answers a confirmation's
 * question and a parked approval at once and holds nothing open, so the time a person
 * takes never counts against the grant's upstream `timeout`; and the grant's
 * `rate-limit` counts only calls that pass the step, so asking, declining and waiting
 * use none of the caller's window.
 */
import { describe, expect, it } from 'vitest';
import {
  AGENT_KEY,
  approvalOf,
  askDeleteConfirm,
  decide,
  deleteConfirmedRetry,
  FINANCE_KEY,
  FORM_CAPS,
  inputRequiredOf,
  postModernCall,
  restRefund,
  resultText,
  useConsentGateway,
} from '../helpers/consent.js';
import type { TestGateway } from '../helpers/gateway.js';
import type { Upstream } from '../helpers/upstream.js';

/** Longer than the grants' upstream timeout of 1 s. */
const PERSON_THINKS_MS = 1_300;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A confirmed grant with a rate limit of one call a minute, beside the shared three. */
const DISPUTE = `
can update dispute {
    describe "Mark a payment disputed."
    path "/payments/{payment}/dispute" { payment "integer" min=1 }
    confirm "Mark payment {payment} disputed?"
    rate-limit "1/m"
}`;

const confirmAnswer = (yes: boolean) => ({
  confirm: yes ? { action: 'accept', content: { confirm: true } } : { action: 'decline' },
});

describe('a person’s wait is no call’s wait', () => {
  let upstream: Upstream;
  let gw: TestGateway;

  useConsentGateway({ extra: 'timeout "1s"', tools: DISPUTE }, (s) => ({ upstream, gw } = s));

  it('runs a call approved after longer than the upstream timeout, once', async () => {
    const parked = await restRefund(gw.url, AGENT_KEY, { payment: 5, amount: 100 });
    expect(parked.status).toBe(202);
    const { id } = approvalOf(parked.json);
    await sleep(PERSON_THINKS_MS);
    expect((await decide(gw.url, FINANCE_KEY, id, 'approve')).status).toBe(200);
    const ran = await restRefund(gw.url, AGENT_KEY, { payment: 5, amount: 100 });
    expect(ran.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
  });

  it('runs a call confirmed after longer than the upstream timeout', async () => {
    const state = await askDeleteConfirm(gw.url, AGENT_KEY, 8);
    await sleep(PERSON_THINKS_MS);
    const retry = await deleteConfirmedRetry(gw.url, AGENT_KEY, 8, state);
    expect(resultText(retry.json).isError).toBe(false);
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /payments/8']);
  });

  it('counts the rate limit only on calls that pass the step: questions and declines are free', async () => {
    const call = (extra: Parameters<typeof postModernCall>[4]) =>
      postModernCall(gw.url, AGENT_KEY, 'update_dispute', { payment: 9 }, extra);
    const ask = async () => inputRequiredOf((await call({ capabilities: FORM_CAPS })).json);
    const answer = async (yes: boolean) =>
      resultText(
        (
          await call({
            capabilities: FORM_CAPS,
            inputResponses: confirmAnswer(yes),
            requestState: (await ask()).requestState,
          })
        ).json,
      );
    // Three questions declined, then a yes: the yes is the window's one call.
    for (let i = 0; i < 3; i++)
      expect((await answer(false)).text).toMatch(/^CONFIRMATION_DECLINED: /);
    expect((await answer(true)).isError).toBe(false);
    // The next yes is over the 1/m; a question before it was still answered.
    expect((await answer(true)).text).toMatch(/^RATE_LIMITED: /);
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PATCH /payments/9/dispute',
    ]);
  });
});
