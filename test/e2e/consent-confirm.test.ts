/**
 * Issue 29, `confirm`, end to end through real clients: the SDK v2 client in 2026-07-28
 * mode answers the gateway's form elicitation (MRTR: input_required, then the retry with
 * the sealed requestState) by accepting, declining or cancelling; clients that cannot be
 * asked (2026-07-28 or the 2025 era without declaring elicitation, REST) are refused with
 * CONFIRMATION_UNAVAILABLE. Each case asserts what the upstream received: one request on
 * a yes, nothing otherwise.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { callTool, postToolCall } from '../helpers/call-tool.js';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { MODERN } from '../helpers/mcp-wire.js';
import { answerJson, type Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const AGENT_KEY = 'agent-key-3c7f1a9e';

function spec(upstream: string): string {
  return `
wrap "consent-confirm" version="1.0.0"
base-url "${upstream}"
access confirm-key-env="CONFIRM_KEY" {
    api-key env="AGENT_KEY" scopes="orders:write"
}
can delete order {
    describe "Delete one order."
    path "/orders/{id}" { id "integer" min=1 }
    confirm "Delete order {id}? This cannot be undone."
}
can list orders {
    describe "List orders."
    path "/orders"
}
`;
}

type Answer = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
};

/** A 2026-07-28 SDK v2 client whose user answers every elicitation with `answer`. */
async function modernClient(
  url: string,
  answer: Answer | undefined,
  seen: unknown[] = [],
): Promise<Client> {
  const client = new Client(
    { name: 'consent-test', version: '1.0.0' },
    {
      versionNegotiation: { mode: { pin: MODERN } },
      ...(answer && { capabilities: { elicitation: { form: {} } } }),
    },
  );
  if (answer)
    client.setRequestHandler('elicitation/create', async (request) => {
      seen.push(request.params);
      return answer;
    });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${AGENT_KEY}` } },
    }),
  );
  return client;
}

describe('confirm: the caller’s own user says yes before the call runs', () => {
  let upstream: Upstream;
  let gw: TestGateway;

  useGatewayOnUpstream(
    spec,
    {
      answer: answerJson(() => ({ deleted: true })),
      env: { AGENT_KEY, CONFIRM_KEY: 'ab'.repeat(32) },
      forgetEach: true,
    },
    (s) => ({ upstream, gw } = s),
  );

  it('asks the SDK v2 client’s user with the filled message, and on accept runs the call once', async () => {
    const seen: unknown[] = [];
    const client = await modernClient(
      gw.url,
      { action: 'accept', content: { confirm: true } },
      seen,
    );
    try {
      const result = await client.callTool({ name: 'delete_order', arguments: { id: 42 } });
      expect(result.isError).toBe(false);
      expect(result.structuredContent).toMatchObject({ result: { deleted: true } });
    } finally {
      await client.close();
    }
    expect(seen).toEqual([
      expect.objectContaining({
        mode: 'form',
        message: 'Delete order 42? This cannot be undone.',
        requestedSchema: expect.objectContaining({ required: ['confirm'] }),
      }),
    ]);
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['DELETE /orders/42']);
    const lines = gw.logs();
    expect(lines).toContain('"event":"confirmation_requested"');
    expect(lines).toContain('"event":"confirmation_accepted"');
  });

  it('sends nothing when the user declines, or accepts with confirm: false', async () => {
    for (const answer of [
      { action: 'decline' },
      { action: 'accept', content: { confirm: false } },
    ] as Answer[]) {
      const client = await modernClient(gw.url, answer);
      try {
        const result = await client.callTool({ name: 'delete_order', arguments: { id: 7 } });
        expect(result.isError).toBe(true);
        expect(JSON.stringify(result.content)).toContain('CONFIRMATION_DECLINED');
      } finally {
        await client.close();
      }
    }
    expect(upstream.requests).toEqual([]);
  });

  it('sends nothing when the user cancels, and says it was cancelled', async () => {
    const client = await modernClient(gw.url, { action: 'cancel' });
    try {
      const result = await client.callTool({ name: 'delete_order', arguments: { id: 7 } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toContain('CONFIRMATION_CANCELLED');
    } finally {
      await client.close();
    }
    expect(upstream.requests).toEqual([]);
  });

  it('leaves grants without confirm alone: no question, the call runs', async () => {
    const seen: unknown[] = [];
    const client = await modernClient(gw.url, { action: 'decline' }, seen);
    try {
      const result = await client.callTool({ name: 'list_orders', arguments: {} });
      expect(result.isError).toBe(false);
    } finally {
      await client.close();
    }
    expect(seen).toEqual([]);
    expect(upstream.requests).toHaveLength(1);
  });

  it('answers a 2026-07-28 request without elicitation with -32021 naming the capability', async () => {
    const res = await postToolCall(gw.url, 'delete_order', { id: 3 }, { key: AGENT_KEY });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: {
        code: -32021,
        data: { requiredCapabilities: { elicitation: {} }, code: 'CONFIRMATION_UNAVAILABLE' },
      },
    });
    expect(upstream.requests).toEqual([]);
  });

  it('refuses the SDK v2 client in the 2025 era, declaring no elicitation, with CONFIRMATION_UNAVAILABLE, sending nothing', async () => {
    const result = await callTool(
      gw.url,
      'delete_order',
      { id: 3 },
      { era: 'legacy', key: AGENT_KEY },
    );
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^CONFIRMATION_UNAVAILABLE: .*2026-07-28/);
    expect(upstream.requests).toEqual([]);
  });

  it('refuses REST with 428 CONFIRMATION_UNAVAILABLE, sending nothing', async () => {
    const res = await postJson(
      `${gw.url}/api/delete_order`,
      { id: 3 },
      { authorization: `Bearer ${AGENT_KEY}` },
    );
    expect(res.status).toBe(428);
    expect(res.json).toMatchObject({ error: { code: 'CONFIRMATION_UNAVAILABLE' } });
    expect(upstream.requests).toEqual([]);
  });
});
