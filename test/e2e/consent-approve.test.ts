/**
 * Issue 29, `approve`, end to end through real clients: the caller's call is parked as an
 * approval (REST 202, an isError APPROVAL_REQUIRED result on MCP in both eras, or a URL
 * elicitation for a 2026-07-28 client declaring it); someone else holding the scope lists
 * and decides it over REST; the caller's repeat then runs exactly once. Each case asserts
 * what the upstream received: one request after an approval, nothing otherwise.
 */
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import {
  AGENT_KEY,
  approvalOf,
  bearer,
  decide,
  FINANCE_KEY,
  FORM_CAPS,
  listApprovals,
  modernClient,
  restRefund,
  URL_CAPS,
  legacyClient,
  useConsentGateway,
} from '../helpers/consent.js';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { answerJson, type Upstream } from '../helpers/upstream.js';

const MINUTE = 60_000;

let upstream: Upstream;
let gw: TestGateway;

useConsentGateway(
  { answer: answerJson((req) => ({ ok: true, path: req.path })) },
  (s) => ({ upstream, gw } = s),
);

const sent = (): string[] => upstream.requests.map((r) => `${r.method} ${r.path} ${r.body}`);

interface TextResult {
  isError?: boolean;
  content: { type: string; text: string }[];
}

/** The approval id an APPROVAL_REQUIRED tool result names (its url ends with it). */
function approvalIdIn(text: string): string {
  const m = /\/approvals\/([A-Za-z0-9_-]{22})\b/.exec(text);
  if (!m) throw new Error(`no approval url in: ${text}`);
  return m[1]!;
}

async function clientV1(key: string): Promise<ClientV1> {
  const client = new ClientV1({ name: 'consent-e2e-v1', version: '1.0.0' });
  await client.connect(
    new TransportV1(new URL(`${gw.url}/mcp`), { requestInit: { headers: bearer(key) } }),
  );
  return client;
}

describe('approve over REST', () => {
  it('answers 202 with the approval; the approver lists and approves it; the repeat runs once; a further repeat needs a new approval', async () => {
    const args = { payment: 101, amount: 500 };
    const first = await restRefund(gw.url, AGENT_KEY, args);
    expect(first.status).toBe(202);
    const approval = approvalOf(first.json);
    expect(approval).toMatchObject({
      message: 'Refund 500 cents on payment 101',
      scope: 'payments:approve',
    });
    expect(approval.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(approval.url).toContain(approval.id);

    // Repeating while pending returns the same approval, and sends nothing.
    const again = await restRefund(gw.url, AGENT_KEY, args);
    expect(again.status).toBe(202);
    expect(approvalOf(again.json).id).toBe(approval.id);

    const listed = await listApprovals(gw.url, FINANCE_KEY);
    expect(listed.find((a) => a.id === approval.id)).toMatchObject({
      tool: 'create_refund',
      message: 'Refund 500 cents on payment 101',
      scope: 'payments:approve',
      status: 'pending',
      requested_by: expect.stringContaining('AGENT_KEY'),
      own: false,
      url: approval.url,
      expires_at: approval.expires_at,
    });
    expect(upstream.requests).toEqual([]);

    const decided = await decide(gw.url, FINANCE_KEY, approval.id, 'approve');
    expect(decided.status).toBe(200);
    expect(decided.json).toMatchObject({
      approval: {
        id: approval.id,
        status: 'approved',
        decided_by: expect.stringContaining('FINANCE_KEY'),
      },
    });
    expect((await listApprovals(gw.url, FINANCE_KEY)).map((a) => a.id)).not.toContain(approval.id);

    const run = await restRefund(gw.url, AGENT_KEY, args);
    expect(run.status).toBe(200);
    expect(sent()).toEqual(['POST /payments/101/refunds {"amount":500}']);

    // The approval is spent: the same call again asks anew and sends nothing more.
    const after = await restRefund(gw.url, AGENT_KEY, args);
    expect(after.status).toBe(202);
    expect(approvalOf(after.json).id).not.toBe(approval.id);
    expect(upstream.requests).toHaveLength(1);

    const lines = gw.logs();
    for (const event of [
      'approval_requested',
      'approval_pending',
      'approval_approved',
      'approval_run',
    ])
      expect(lines).toContain(`"event":"${event}"`);
  });

  it('dates the approval `expires` (15m here) after the moment it was requested, as the approver sees it too', async () => {
    const before = Date.now();
    const res = await restRefund(gw.url, AGENT_KEY, { payment: 102, amount: 5 });
    const after = Date.now();
    const approval = approvalOf(res.json);
    const expires = Date.parse(approval.expires_at);
    // Bracketed by the test's own clock around the request, not a measure of how long it took.
    expect(expires).toBeGreaterThanOrEqual(before + 15 * MINUTE);
    expect(expires).toBeLessThanOrEqual(after + 15 * MINUTE);
    const listed = (await listApprovals(gw.url, FINANCE_KEY)).find((a) => a.id === approval.id)!;
    expect(listed.expires_at).toBe(approval.expires_at);
  });

  it('after a decline answers APPROVAL_DECLINED (403) and sends nothing', async () => {
    const args = { payment: 103, amount: 900 };
    const approval = approvalOf((await restRefund(gw.url, AGENT_KEY, args)).json);
    const decided = await decide(gw.url, FINANCE_KEY, approval.id, 'decline');
    expect(decided.status).toBe(200);
    expect(decided.json).toMatchObject({ approval: { status: 'declined' } });

    const res = await restRefund(gw.url, AGENT_KEY, args);
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ error: { code: 'APPROVAL_DECLINED' } });
    expect(upstream.requests).toEqual([]);
    expect(gw.logs()).toContain('"event":"approval_declined"');
  });

  it('binds the approval to the arguments: other arguments ask anew, and only the approved ones run', async () => {
    const approval = approvalOf(
      (await restRefund(gw.url, AGENT_KEY, { payment: 104, amount: 10 })).json,
    );
    expect((await decide(gw.url, FINANCE_KEY, approval.id, 'approve')).status).toBe(200);
    const other = await restRefund(gw.url, AGENT_KEY, { payment: 104, amount: 10_000 });
    expect(other.status).toBe(202);
    expect(approvalOf(other.json).id).not.toBe(approval.id);
    expect(upstream.requests).toEqual([]);
    expect((await restRefund(gw.url, AGENT_KEY, { payment: 104, amount: 10 })).status).toBe(200);
    expect(sent()).toEqual(['POST /payments/104/refunds {"amount":10}']);
  });
});

describe('approve through MCP clients that cannot be asked', () => {
  it('gives the SDK v2 client in the 2025 era APPROVAL_REQUIRED, then runs its repeat once approved', async () => {
    const client = await legacyClient(gw.url, AGENT_KEY);
    try {
      const call = () =>
        client.callTool({
          name: 'create_refund',
          arguments: { payment: 201, amount: 25 },
        }) as Promise<TextResult>;
      const first = await call();
      expect(first.isError).toBe(true);
      expect(first.content[0]!.text).toMatch(/^APPROVAL_REQUIRED: .*payments:approve/);
      const id = approvalIdIn(first.content[0]!.text);
      expect(upstream.requests).toEqual([]);

      expect((await decide(gw.url, FINANCE_KEY, id, 'approve')).status).toBe(200);
      const run = await call();
      expect(run.isError).toBeFalsy();
      expect(sent()).toEqual(['POST /payments/201/refunds {"amount":25}']);
    } finally {
      await client.close();
    }
  });

  it('gives the SDK v1 client APPROVAL_REQUIRED, then runs its repeat once approved', async () => {
    const client = await clientV1(AGENT_KEY);
    try {
      const call = () =>
        client.callTool({
          name: 'create_refund',
          arguments: { payment: 202, amount: 26 },
        }) as Promise<TextResult>;
      const first = await call();
      expect(first.isError).toBe(true);
      expect(first.content[0]!.text).toMatch(/^APPROVAL_REQUIRED: /);
      const id = approvalIdIn(first.content[0]!.text);
      expect(upstream.requests).toEqual([]);

      expect((await decide(gw.url, FINANCE_KEY, id, 'approve')).status).toBe(200);
      const run = await call();
      expect(run.isError).toBeFalsy();
      expect(sent()).toEqual(['POST /payments/202/refunds {"amount":26}']);
    } finally {
      await client.close();
    }
  });

  it('gives a 2026-07-28 SDK v2 client without elicitation APPROVAL_REQUIRED (approve works for every client)', async () => {
    const client = await modernClient(gw.url, AGENT_KEY, undefined);
    try {
      const first = (await client.callTool({
        name: 'create_refund',
        arguments: { payment: 203, amount: 27 },
      })) as TextResult;
      expect(first.isError).toBe(true);
      expect(first.content[0]!.text).toMatch(/^APPROVAL_REQUIRED: /);
    } finally {
      await client.close();
    }
    expect(upstream.requests).toEqual([]);
  });

  it('gives the SDK v1 client APPROVAL_DECLINED after a decline, sending nothing', async () => {
    const client = await clientV1(AGENT_KEY);
    try {
      const call = () =>
        client.callTool({
          name: 'create_refund',
          arguments: { payment: 204, amount: 28 },
        }) as Promise<TextResult>;
      const id = approvalIdIn((await call()).content[0]!.text);
      expect((await decide(gw.url, FINANCE_KEY, id, 'decline')).status).toBe(200);
      const res = await call();
      expect(res.isError).toBe(true);
      expect(res.content[0]!.text).toMatch(/^APPROVAL_DECLINED: /);
    } finally {
      await client.close();
    }
    expect(upstream.requests).toEqual([]);
  });
});

describe('approve through a 2026-07-28 client declaring URL elicitation', () => {
  it('hands the SDK v2 client a URL elicitation of the approval; approved meanwhile, the SDK’s retry runs the call once', async () => {
    const seen: Record<string, unknown>[] = [];
    const client = await modernClient(gw.url, AGENT_KEY, URL_CAPS, async (params) => {
      seen.push(params);
      // The user opened the link and had the approver approve it before answering.
      const id = approvalIdIn(String(params.url));
      const decided = await decide(gw.url, FINANCE_KEY, id, 'approve');
      if (decided.status !== 200) throw new Error(`approve: ${decided.text}`);
      return { action: 'accept' };
    });
    try {
      const result = (await client.callTool({
        name: 'create_refund',
        arguments: { payment: 301, amount: 30 },
      })) as TextResult & { structuredContent?: unknown };
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ result: { ok: true } });
    } finally {
      await client.close();
    }
    expect(seen).toEqual([
      {
        mode: 'url',
        message: expect.stringContaining('Refund 30 cents on payment 301'),
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/.*approvals\/[A-Za-z0-9_-]{22}$/),
      },
    ]);
    expect(sent()).toEqual(['POST /payments/301/refunds {"amount":30}']);
  });

  it('answers the SDK’s retry with APPROVAL_REQUIRED while the approval is still pending, sending nothing', async () => {
    const client = await modernClient(gw.url, AGENT_KEY, URL_CAPS, async () => ({
      action: 'accept',
    }));
    try {
      const result = (await client.callTool({
        name: 'create_refund',
        arguments: { payment: 302, amount: 31 },
      })) as TextResult;
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toMatch(/^APPROVAL_REQUIRED: /);
    } finally {
      await client.close();
    }
    expect(upstream.requests).toEqual([]);
  });

  it('answers the SDK’s retry with APPROVAL_DECLINED when the approver declined meanwhile', async () => {
    const client = await modernClient(gw.url, AGENT_KEY, URL_CAPS, async (params) => {
      await decide(gw.url, FINANCE_KEY, approvalIdIn(String(params.url)), 'decline');
      return { action: 'accept' };
    });
    try {
      const result = (await client.callTool({
        name: 'create_refund',
        arguments: { payment: 303, amount: 32 },
      })) as TextResult;
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toMatch(/^APPROVAL_DECLINED: /);
    } finally {
      await client.close();
    }
    expect(upstream.requests).toEqual([]);
  });
});

describe('a grant with both confirm and approve', () => {
  it('has a client with form elicitation confirm first, then waits for the approval, then runs the repeat once', async () => {
    const seen: Record<string, unknown>[] = [];
    const client = await modernClient(gw.url, AGENT_KEY, FORM_CAPS, async (params) => {
      seen.push(params);
      return { action: 'accept', content: { confirm: true } };
    });
    try {
      const call = () =>
        client.callTool({
          name: 'update_payment',
          arguments: { payment: 401 },
        }) as Promise<TextResult>;
      const first = await call();
      expect(seen).toEqual([
        expect.objectContaining({ mode: 'form', message: 'Void payment 401?' }),
      ]);
      expect(first.isError).toBe(true);
      expect(first.content[0]!.text).toMatch(/^APPROVAL_REQUIRED: /);
      expect(upstream.requests).toEqual([]);

      expect(
        (await decide(gw.url, FINANCE_KEY, approvalIdIn(first.content[0]!.text), 'approve')).status,
      ).toBe(200);
      // The repeat is not asked again: its confirmation was given when approval was requested.
      const run = await call();
      expect(run.isError).toBeFalsy();
      expect(seen).toHaveLength(1);
    } finally {
      await client.close();
    }
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PATCH /payments/401/void',
    ]);
  });

  it('has a client with form and URL elicitation confirm, then open the approval’s URL; approved meanwhile, the SDK’s retry runs once', async () => {
    const seen: Record<string, unknown>[] = [];
    const client = await modernClient(
      gw.url,
      AGENT_KEY,
      { elicitation: { form: {}, url: {} } },
      async (params) => {
        seen.push(params);
        if (params.mode === 'form') return { action: 'accept', content: { confirm: true } };
        const decided = await decide(
          gw.url,
          FINANCE_KEY,
          approvalIdIn(String(params.url)),
          'approve',
        );
        if (decided.status !== 200) throw new Error(`approve: ${decided.text}`);
        return { action: 'accept' };
      },
    );
    try {
      const result = (await client.callTool({
        name: 'update_payment',
        arguments: { payment: 404 },
      })) as TextResult;
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    expect(seen.map((p) => p.mode)).toEqual(['form', 'url']);
    expect(seen[1]).toMatchObject({ message: expect.stringContaining('Void payment 404') });
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PATCH /payments/404/void',
    ]);
  });

  it('sends nothing and requests no approval when the user declines the confirmation', async () => {
    const client = await modernClient(gw.url, AGENT_KEY, FORM_CAPS, async () => ({
      action: 'decline',
    }));
    try {
      const result = (await client.callTool({
        name: 'update_payment',
        arguments: { payment: 402 },
      })) as TextResult;
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toMatch(/^CONFIRMATION_DECLINED: /);
    } finally {
      await client.close();
    }
    const listed = await listApprovals(gw.url, FINANCE_KEY);
    expect(listed.filter((a) => a.message === 'Void payment 402')).toEqual([]);
    expect(upstream.requests).toEqual([]);
  });

  it('takes a REST caller, who cannot be asked, straight to the approval', async () => {
    const res = await postJson(`${gw.url}/api/update_payment`, { payment: 403 }, bearer(AGENT_KEY));
    expect(res.status).toBe(202);
    expect(approvalOf(res.json)).toMatchObject({ message: 'Void payment 403' });
    expect(upstream.requests).toEqual([]);
  });
});
