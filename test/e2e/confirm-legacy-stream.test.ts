/**
 * Issue 41, `confirm` for 2025-era hosts: a client that declares form elicitation in
 * `initialize` gets a sealed Mcp-Session-Id carrying it, and its tools/call of a `confirm`
 * grant is answered as an SSE stream putting `elicitation/create` to its user; the
 * client's answer, POSTed back (202), runs the call once or not at all. Real SDK v1
 * clients (2025-11-25) with a handler for the question, the raw wire once, and a real
 * upstream on 127.0.0.1 whose record says what was sent.
 */
import { createSecretKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AGENT_KEY, CONFIRM_KEY, OTHER_AGENT_KEY, useConsentGateway } from '../helpers/consent.js';
import type { TestGateway } from '../helpers/gateway.js';
import type { Upstream } from '../helpers/upstream.js';
import {
  answerRaw,
  askingClientV1,
  initializeRaw,
  sseEvents,
  toolsCallRaw,
} from '../helpers/legacy-asking.js';
import { SessionSeal } from '../../src/projection/mcp/session-id.js';
import { LEGACY } from '../helpers/mcp-wire.js';

let upstream: Upstream;
let gw: TestGateway;

useConsentGateway({}, (s) => ({ upstream, gw } = s));

const sent = (): string[] => upstream.requests.map((r) => `${r.method} ${r.path}`);

interface ToolResultV1 {
  isError?: boolean;
  content: { type: string; text: string }[];
  structuredContent?: unknown;
}

describe('an SDK v1 client (2025-11-25) that declared form elicitation is asked on its call’s stream', () => {
  it('runs the call once, with its arguments, when the user accepts with confirm: true', async () => {
    const seen: unknown[] = [];
    const { client } = await askingClientV1(
      gw.url,
      AGENT_KEY,
      { action: 'accept', content: { confirm: true } },
      seen,
    );
    let result: ToolResultV1;
    try {
      result = (await client.callTool({
        name: 'delete_payment',
        arguments: { payment: 41 },
      })) as ToolResultV1;
    } finally {
      await client.close();
    }
    expect(result.isError).toBe(false);
    expect(seen).toEqual([
      {
        mode: 'form',
        message: 'Delete payment 41? This cannot be undone.',
        requestedSchema: expect.objectContaining({
          type: 'object',
          properties: { confirm: expect.objectContaining({ type: 'boolean' }) },
          required: ['confirm'],
        }),
      },
    ]);
    expect(sent()).toEqual(['DELETE /payments/41']);
    const logs = gw.logs();
    expect(logs).toContain('"event":"confirmation_requested"');
    expect(logs).toContain('"event":"confirmation_accepted"');
  });

  it('sends nothing and says CONFIRMATION_DECLINED when the user declines or says confirm: false', async () => {
    for (const answer of [
      { action: 'decline' as const },
      { action: 'accept' as const, content: { confirm: false } },
    ]) {
      const { client } = await askingClientV1(gw.url, AGENT_KEY, answer);
      try {
        const result = (await client.callTool({
          name: 'delete_payment',
          arguments: { payment: 42 },
        })) as ToolResultV1;
        expect(result.isError).toBe(true);
        expect(result.content[0]!.text).toMatch(/^CONFIRMATION_DECLINED: /);
      } finally {
        await client.close();
      }
    }
    expect(sent()).toEqual([]);
  });

  it('sends nothing and says CONFIRMATION_CANCELLED when the user dismisses the question', async () => {
    const { client } = await askingClientV1(gw.url, AGENT_KEY, { action: 'cancel' });
    try {
      const result = (await client.callTool({
        name: 'delete_payment',
        arguments: { payment: 43 },
      })) as ToolResultV1;
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toMatch(/^CONFIRMATION_CANCELLED: /);
    } finally {
      await client.close();
    }
    expect(sent()).toEqual([]);
  });

  it('sends nothing when the client gives up while its user is being asked, and logs the dropped question', async () => {
    let asked!: () => void;
    const beingAsked = new Promise<void>((resolve) => (asked = resolve));
    // The user never answers: the handler waits until the test is over.
    const { client } = await askingClientV1(gw.url, AGENT_KEY, () => {
      asked();
      return new Promise(() => undefined);
    });
    const abort = new AbortController();
    const call = client
      .callTool({ name: 'delete_payment', arguments: { payment: 44 } }, undefined, {
        signal: abort.signal,
      })
      .catch((err: unknown) => err);
    await beingAsked;
    abort.abort();
    await call;
    await client.close();
    // The gateway notices the closed stream; its audit line says the question was dropped.
    await expect.poll(() => gw.logs()).toContain('"event":"confirmation_abandoned"');
    expect(gw.logs()).toContain('"reason":"the client closed the stream"');
    expect(sent()).toEqual([]);
  });

  it('asks first on a grant with confirm and approve, then requests the approval on the stream, sending nothing', async () => {
    const seen: unknown[] = [];
    const { client } = await askingClientV1(
      gw.url,
      AGENT_KEY,
      { action: 'accept', content: { confirm: true } },
      seen,
    );
    try {
      const result = (await client.callTool({
        name: 'update_payment',
        arguments: { payment: 50 },
      })) as ToolResultV1;
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toMatch(/^APPROVAL_REQUIRED: .*Void payment 50/s);
    } finally {
      await client.close();
    }
    expect(seen).toEqual([expect.objectContaining({ message: 'Void payment 50?' })]);
    expect(sent()).toEqual([]);
  });

  it('leaves a grant without confirm alone: no question, the call runs', async () => {
    const seen: unknown[] = [];
    const { client } = await askingClientV1(gw.url, AGENT_KEY, { action: 'decline' }, seen);
    try {
      const result = (await client.callTool({
        name: 'create_refund',
        arguments: { payment: 5, amount: 100 },
      })) as ToolResultV1;
      // approve-only: the approval is requested, nobody is asked to confirm.
      expect(result.content[0]!.text).toMatch(/^APPROVAL_REQUIRED: /);
    } finally {
      await client.close();
    }
    expect(seen).toEqual([]);
    expect(sent()).toEqual([]);
  });
});

describe('the 2025-era round trip on the wire', () => {
  it('streams elicitation/create, takes the answer POST with 202, then sends the result on the first stream', async () => {
    const session = await initializeRaw(gw.url, AGENT_KEY);
    expect(session).toMatch(/^s1\.[A-Za-z0-9_-]+$/);
    const res = await toolsCallRaw(gw.url, AGENT_KEY, session!, 'delete_payment', {
      payment: 45,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = sseEvents(res);
    const question = (await events.next()) as {
      id: string;
      method: string;
      params: Record<string, unknown>;
    };
    expect(question).toMatchObject({
      jsonrpc: '2.0',
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Delete payment 45? This cannot be undone.' },
    });
    expect(question.id).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(sent()).toEqual([]);
    const answer = await answerRaw(gw.url, AGENT_KEY, session!, {
      id: question.id,
      result: { action: 'accept', content: { confirm: true } },
    });
    expect(answer.status).toBe(202);
    expect(await answer.text()).toBe('');
    const response = (await events.next()) as { id: number; result: ToolResultV1 };
    expect(response.result.isError).toBe(false);
    expect(sent()).toEqual(['DELETE /payments/45']);
    // A second answer to the same question answers nothing now.
    const again = await answerRaw(gw.url, AGENT_KEY, session!, {
      id: question.id,
      result: { action: 'accept', content: { confirm: true } },
    });
    expect(again.status).toBe(400);
    expect(sent()).toEqual(['DELETE /payments/45']);
  });

  it('refuses an answer from another caller (400) and keeps the question open for its own', async () => {
    const session = await initializeRaw(gw.url, AGENT_KEY);
    const res = await toolsCallRaw(gw.url, AGENT_KEY, session!, 'delete_payment', {
      payment: 46,
    });
    const events = sseEvents(res);
    const question = (await events.next()) as { id: string };
    const stranger = await answerRaw(gw.url, OTHER_AGENT_KEY, undefined, {
      id: question.id,
      result: { action: 'accept', content: { confirm: true } },
    });
    expect(stranger.status).toBe(400);
    expect(((await stranger.json()) as { error: { code: number } }).error.code).toBe(-32600);
    expect(sent()).toEqual([]);
    const own = await answerRaw(gw.url, AGENT_KEY, session!, {
      id: question.id,
      result: { action: 'decline' },
    });
    expect(own.status).toBe(202);
    const response = (await events.next()) as { result: ToolResultV1 };
    expect(response.result.content[0]!.text).toMatch(/^CONFIRMATION_DECLINED: /);
    expect(sent()).toEqual([]);
  });

  it('drops the question when the client cancels the call, ending the stream with no response and sending nothing', async () => {
    const session = await initializeRaw(gw.url, AGENT_KEY);
    const res = await toolsCallRaw(
      gw.url,
      AGENT_KEY,
      session!,
      'delete_payment',
      { payment: 49 },
      undefined,
      4901,
    );
    const events = sseEvents(res);
    const question = (await events.next()) as { id: string };
    const cancelled = await answerRaw(gw.url, AGENT_KEY, session!, {
      method: 'notifications/cancelled',
      params: { requestId: 4901, reason: 'the host timed out' },
    });
    expect(cancelled.status).toBe(202);
    await expect(events.next()).rejects.toThrow(/the stream ended/);
    expect(gw.logs()).toContain('"reason":"the client cancelled the call"');
    const late = await answerRaw(gw.url, AGENT_KEY, session!, {
      id: question.id,
      result: { action: 'accept', content: { confirm: true } },
    });
    expect(late.status).toBe(400);
    expect(sent()).toEqual([]);
  });

  it('answers a response to no open question with a 400 JSON-RPC error', async () => {
    const res = await answerRaw(gw.url, AGENT_KEY, undefined, {
      id: 'no-such-question-0123456789',
      result: { action: 'accept', content: { confirm: true } },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });

  it('does not ask a 2025-era client whose session declared no elicitation: CONFIRMATION_UNAVAILABLE says what would work', async () => {
    const session = await initializeRaw(gw.url, AGENT_KEY, {});
    expect(session).not.toBeNull();
    const res = await toolsCallRaw(gw.url, AGENT_KEY, session!, 'delete_payment', {
      payment: 47,
    });
    expect(res.headers.get('content-type')).toContain('application/json');
    const body = (await res.json()) as { result: ToolResultV1 };
    expect(body.result.isError).toBe(true);
    const text = body.result.content[0]!.text;
    expect(text).toMatch(/^CONFIRMATION_UNAVAILABLE: /);
    expect(text).toMatch(/2025-era client when it initializes/);
    expect(sent()).toEqual([]);
  });

  it('does not ask a declaring client whose Accept takes no event stream, and says so', async () => {
    const session = await initializeRaw(gw.url, AGENT_KEY);
    const res = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${AGENT_KEY}`,
        'mcp-protocol-version': LEGACY,
        'mcp-session-id': session!,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'delete_payment', arguments: { payment: 48 } },
      }),
    });
    const body = (await res.json()) as { result: ToolResultV1 };
    expect(body.result.content[0]!.text).toMatch(
      /^CONFIRMATION_UNAVAILABLE: .*does not accept text\/event-stream/,
    );
    expect(sent()).toEqual([]);
  });
});

describe('the sealed session id', () => {
  const seal = (now: () => number): SessionSeal =>
    new SessionSeal(createSecretKey(Buffer.from(CONFIRM_KEY, 'hex')), now);
  const agent = { id: 'api-key:AGENT_KEY#1', scopes: 'all' as const };

  it('is refused with 404 when forged, expired or another caller’s, and a request without one is served as before', async () => {
    const good = await initializeRaw(gw.url, AGENT_KEY);
    const forged = `${good!.slice(0, -4)}${good!.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const expired = seal(() => Date.now() - 25 * 3_600_000).seal(
      { version: LEGACY, form: true, url: false },
      agent,
    );
    // Sealed with the same key for this caller, by "another replica": honoured.
    const replica = seal(Date.now).seal({ version: LEGACY, form: true, url: false }, agent);
    const ping = (key: string, session?: string): Promise<Response> =>
      fetch(`${gw.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${key}`,
          'mcp-protocol-version': LEGACY,
          ...(session !== undefined && { 'mcp-session-id': session }),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    for (const [key, session] of [
      [AGENT_KEY, forged],
      [AGENT_KEY, expired],
      [AGENT_KEY, 'not-a-session'],
      [OTHER_AGENT_KEY, good!],
    ] as const) {
      const res = await ping(key, session);
      expect(res.status, session).toBe(404);
      expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
    }
    expect((await ping(AGENT_KEY, good!)).status).toBe(200);
    expect((await ping(AGENT_KEY, replica)).status).toBe(200);
    expect((await ping(AGENT_KEY)).status).toBe(200);
  });

  it('is ended by DELETE (204), while DELETE without one stays 405 and a forged one is 404', async () => {
    const good = await initializeRaw(gw.url, AGENT_KEY);
    const del = (session?: string): Promise<Response> =>
      fetch(`${gw.url}/mcp`, {
        method: 'DELETE',
        headers: {
          authorization: `Bearer ${AGENT_KEY}`,
          ...(session !== undefined && { 'mcp-session-id': session }),
        },
      });
    expect((await del(good!)).status).toBe(204);
    expect((await del()).status).toBe(405);
    expect((await del('s1.forged')).status).toBe(404);
  });

  it('is ignored by 2026-07-28 requests, which declare their capabilities on themselves', async () => {
    const res = await fetch(`${gw.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${AGENT_KEY}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
        'mcp-session-id': 's1.forged',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(res.status).toBe(200);
  });
});
