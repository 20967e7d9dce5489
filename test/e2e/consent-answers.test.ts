/**
 * What a consent answer says to an MCP agent (docs/spec-language.md, "Confirmation and
 * approval"), through the official SDK v2 client in both eras: a call waiting for approval
 * carries the filled approval message in its text and the approval itself in
 * `_meta["mcp-beaver/approval"]` (the object REST sends as `details.approval`); a
 * confirmation that cannot be asked (-32021 in 2026-07-28, CONFIRMATION_UNAVAILABLE
 * otherwise) names its code and what would let the call run. Nothing reaches the upstream.
 */
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import {
  AGENT_KEY,
  approvalOf,
  bearer,
  FINANCE_KEY,
  listApprovals,
  modernClient,
  restRefund,
  legacyClient,
  useConsentGateway,
} from '../helpers/consent.js';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { answerJson, type Upstream } from '../helpers/upstream.js';

const APPROVAL_META = 'mcp-beaver/approval';

let upstream: Upstream;
let gw: TestGateway;

useConsentGateway(
  { answer: answerJson((req) => ({ ok: true, path: req.path })) },
  (s) => ({ upstream, gw } = s),
);

interface MetaResult {
  isError?: boolean;
  content: { type: string; text: string }[];
  _meta?: Record<string, unknown>;
}

const ERAS: [string, () => Promise<Client>][] = [
  ['2026-07-28', () => modernClient(gw.url, AGENT_KEY, undefined)],
  ['2025-11-25', () => legacyClient(gw.url, AGENT_KEY)],
];

describe.each(ERAS)('APPROVAL_REQUIRED to the SDK v2 client in %s', (era, connect) => {
  const payment = era === '2026-07-28' ? 301 : 302;

  it('carries the approval in _meta["mcp-beaver/approval"] and the filled message in its text', async () => {
    const client = await connect();
    let result: MetaResult;
    try {
      result = (await client.callTool({
        name: 'create_refund',
        arguments: { payment, amount: 40 },
      })) as MetaResult;
    } finally {
      await client.close();
    }
    expect(result.isError).toBe(true);
    const text = result.content[0]!.text;
    expect(text).toMatch(/^APPROVAL_REQUIRED: /);
    expect(text).toContain(`Refund 40 cents on payment ${payment}`);

    const approval = result._meta?.[APPROVAL_META] as Record<string, unknown> | undefined;
    expect(approval).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      url: `${gw.url}/approvals/${String(approval?.id)}`,
      message: `Refund 40 cents on payment ${payment}`,
      scope: 'payments:approve',
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(text).toContain(String(approval!.url));
    // In 2026-07-28 the approval joins the _meta every result carries; it replaces nothing.
    if (era === '2026-07-28')
      expect(result._meta?.['io.modelcontextprotocol/serverInfo']).toMatchObject({
        name: 'consent-approve',
      });

    // The same approval REST and the approver see: repeating over REST returns it.
    const rest = approvalOf((await restRefund(gw.url, AGENT_KEY, { payment, amount: 40 })).json);
    expect(rest).toEqual(approval);
    const listed = await listApprovals(gw.url, FINANCE_KEY);
    expect(listed.find((a) => a.id === approval!.id)?.expires_at).toBe(approval!.expires_at);
    expect(upstream.requests).toEqual([]);
  });
});

describe('a confirmation that cannot be asked', () => {
  it('is -32021 to a 2026-07-28 SDK v2 client without elicitation, naming the code and what would work', async () => {
    const client = await modernClient(gw.url, AGENT_KEY, undefined);
    let failure: unknown;
    try {
      await client.callTool({ name: 'delete_payment', arguments: { payment: 303 } });
    } catch (err) {
      failure = err;
    } finally {
      await client.close();
    }
    // The SDK rebuilds the error's data from requiredCapabilities alone: the catalogue
    // code beside it on the wire never reaches the agent, so the message must carry it.
    expect(failure).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: {} } },
    });
    const message = (failure as Error).message;
    expect(message).toContain('CONFIRMATION_UNAVAILABLE: ');
    expect(message).toMatch(/declaring the elicitation capability/);
    expect(message).toMatch(/`approve`/);
    expect(upstream.requests).toEqual([]);
  });

  it('is a CONFIRMATION_UNAVAILABLE result to the SDK v2 client in 2025-11-25, saying which client or grant would be asked', async () => {
    const client = await legacyClient(gw.url, AGENT_KEY);
    let result: MetaResult;
    try {
      result = (await client.callTool({
        name: 'delete_payment',
        arguments: { payment: 304 },
      })) as MetaResult;
    } finally {
      await client.close();
    }
    expect(result.isError).toBe(true);
    const text = result.content[0]!.text;
    expect(text).toMatch(/^CONFIRMATION_UNAVAILABLE: /);
    // A 2025-era client that declares elicitation in initialize is asked now (issue 41).
    expect(text).toMatch(/2025-era client when it initializes/);
    expect(text).toMatch(/2026-07-28 client declaring the elicitation capability/);
    expect(text).toMatch(/`approve`/);
    expect(upstream.requests).toEqual([]);
  });

  it('is 428 over REST, saying which client or grant would be asked', async () => {
    const res = await postJson(`${gw.url}/api/delete_payment`, { payment: 305 }, bearer(AGENT_KEY));
    expect(res.status).toBe(428);
    const error = (res.json as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('CONFIRMATION_UNAVAILABLE');
    expect(error.message).toMatch(/2025-era client when it initializes/);
    expect(error.message).toMatch(/2026-07-28 client declaring the elicitation capability/);
    expect(error.message).toMatch(/`approve`/);
    expect(upstream.requests).toEqual([]);
  });
});
