/**
 * Issue 41, the bounds of a 2025-era question on its stream: one caller holds at most 20
 * open questions (RATE_LIMITED beyond, nothing asked), comment lines keep a waiting
 * stream alive, an unanswered question ends with CONFIRMATION_TIMED_OUT, and a shutdown
 * answers every open question on its stream. Nothing reaches the upstream in any of them.
 * The wait and the keep-alive are shortened by their test-only variables; no test asserts
 * a time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENT_KEY,
  CONFIRM_KEY,
  consentSpec,
  KEYS_ENV,
  OTHER_AGENT_KEY,
  useConsentGateway,
} from '../helpers/consent.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { okJson, type Upstream } from '../helpers/upstream.js';
import { useUpstream } from '../helpers/upstream-fixtures.js';
import { answerRaw, initializeRaw, sseEvents, toolsCallRaw } from '../helpers/legacy-asking.js';
import { KEEPALIVE_ENV, WAIT_ENV } from '../../src/projection/mcp/process-questions.js';

interface ToolResponse {
  result: { isError?: boolean; content: { text: string }[] };
}

describe('one caller’s open questions', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  useConsentGateway({}, (s) => ({ upstream, gw } = s));

  it('are at most 20: the 21st call is RATE_LIMITED and asks nothing, while another caller is still asked', async () => {
    const session = await initializeRaw(gw.url, AGENT_KEY);
    const abort = new AbortController();
    try {
      const open = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await toolsCallRaw(
            gw.url,
            AGENT_KEY,
            session!,
            'delete_payment',
            { payment: 100 + i },
            abort.signal,
          );
          return (await sseEvents(res).next()) as { method: string };
        }),
      );
      expect(open.every((q) => q.method === 'elicitation/create')).toBe(true);
      const over = await toolsCallRaw(gw.url, AGENT_KEY, session!, 'delete_payment', {
        payment: 121,
      });
      expect(over.headers.get('content-type')).toContain('application/json');
      const body = (await over.json()) as ToolResponse;
      expect(body.result.isError).toBe(true);
      expect(body.result.content[0]!.text).toMatch(/^RATE_LIMITED: .*20 confirmations/);
      const other = await initializeRaw(gw.url, OTHER_AGENT_KEY);
      const res = await toolsCallRaw(
        gw.url,
        OTHER_AGENT_KEY,
        other!,
        'delete_payment',
        { payment: 122 },
        abort.signal,
      );
      expect(await sseEvents(res).next()).toMatchObject({ method: 'elicitation/create' });
    } finally {
      abort.abort();
    }
    expect(upstream.requests).toEqual([]);
    // Closing the streams dropped the questions: the caller is asked again.
    await expect
      .poll(async () => {
        const res = await toolsCallRaw(gw.url, AGENT_KEY, session!, 'delete_payment', {
          payment: 123,
        });
        const asked = res.headers.get('content-type') === 'text/event-stream';
        await res.body?.cancel();
        return asked;
      })
      .toBe(true);
  });
});

describe('a question nobody answers', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  useUpstream(okJson, (u) => (upstream = u));

  beforeAll(async () => {
    gw = await startGateway(consentSpec(upstream.url), {
      env: { ...KEYS_ENV, CONFIRM_KEY, [WAIT_ENV]: '400', [KEEPALIVE_ENV]: '20' },
    });
  });
  afterAll(() => gw?.close());

  it('keeps its stream alive with comment lines, then ends with CONFIRMATION_TIMED_OUT, sending nothing', async () => {
    const session = await initializeRaw(gw.url, AGENT_KEY);
    const res = await toolsCallRaw(gw.url, AGENT_KEY, session!, 'delete_payment', {
      payment: 7,
    });
    const events = sseEvents(res);
    expect(await events.next()).toMatchObject({ method: 'elicitation/create' });
    const response = (await events.next()) as ToolResponse;
    expect(events.comments()).toBeGreaterThan(0);
    expect(response.result.isError).toBe(true);
    expect(response.result.content[0]!.text).toMatch(/^CONFIRMATION_TIMED_OUT: .*nothing was sent/);
    expect(upstream.requests).toEqual([]);
    expect(gw.logs()).toContain('"reason":"no answer within the wait"');
  });
});

describe('a shutdown while questions are open', () => {
  let upstream: Upstream;
  useUpstream(okJson, (u) => (upstream = u));

  it('answers each open question on its stream that the gateway is shutting down, and sends nothing', async () => {
    const gw = await startGateway(consentSpec(upstream.url), {
      env: { ...KEYS_ENV, CONFIRM_KEY },
    });
    let closed = false;
    try {
      const session = await initializeRaw(gw.url, AGENT_KEY);
      const streams = await Promise.all(
        [1, 2].map(async (payment) => {
          const events = sseEvents(
            await toolsCallRaw(gw.url, AGENT_KEY, session!, 'delete_payment', { payment }),
          );
          const question = (await events.next()) as { id: string };
          return { events, question };
        }),
      );
      const stopping = gw.close();
      for (const { events } of streams) {
        const response = (await events.next()) as ToolResponse;
        expect(response.result.isError).toBe(true);
        expect(response.result.content[0]!.text).toMatch(
          /^DRAINING: the gateway is shutting down; nothing was sent/,
        );
      }
      await stopping;
      closed = true;
      expect(upstream.requests).toEqual([]);
    } finally {
      if (!closed) await gw.close();
    }
  });
});

describe('an answer after the call’s stream is gone', () => {
  let upstream: Upstream;
  let gw: TestGateway;
  useConsentGateway({}, (s) => ({ upstream, gw } = s));

  it('is refused (400) and runs nothing', async () => {
    const session = await initializeRaw(gw.url, AGENT_KEY);
    const abort = new AbortController();
    const res = await toolsCallRaw(
      gw.url,
      AGENT_KEY,
      session!,
      'delete_payment',
      { payment: 9 },
      abort.signal,
    );
    const question = (await sseEvents(res).next()) as { id: string };
    abort.abort();
    await expect.poll(() => gw.logs()).toContain('"event":"confirmation_abandoned"');
    const late = await answerRaw(gw.url, AGENT_KEY, session!, {
      id: question.id,
      result: { action: 'accept', content: { confirm: true } },
    });
    expect(late.status).toBe(400);
    expect(upstream.requests).toEqual([]);
  });
});
