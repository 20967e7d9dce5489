/**
 * What consent grants say (docs/spec-language.md, "Confirmation and approval"). In the
 * list, before any call, the tool of a `confirm` grant carries `_meta["mcp-beaver/consent"] =
 * {"confirm": true}`, of an `approve` grant `{"approve": {"by": "<scope>"}}` (both when
 * both), and its description ends with one sentence saying who is asked. Read through the
 * official SDKs in both eras (v1 in 2025-11-25, v2 pinned to 2026-07-28 and in the legacy
 * era), and on the REST listing and the OpenAPI document the catalog page and REST
 * clients read. In the answer, to the SDK v1 client (the SDK v2 in both eras is
 * consent-answers.test.ts): APPROVAL_REQUIRED carries the approval as
 * `_meta["mcp-beaver/approval"]` and its filled message in the text.
 */
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import {
  BOTH_KEY,
  bearer,
  legacyClient,
  modernClient,
  useConsentGateway,
} from '../helpers/consent.js';
import type { TestGateway } from '../helpers/gateway.js';
import type { Upstream } from '../helpers/upstream.js';

const CONSENT_META = 'mcp-beaver/consent';

let gw: TestGateway;
let upstream: Upstream;

useConsentGateway(
  {
    tools: `can get payment {
    describe "Get a payment."
    path "/payments/{payment}" { payment "integer" min=1 }
}`,
  },
  (s) => ({ gw, upstream } = s),
);

/** What each tool of the consent spec says of itself: its `_meta` member and description. */
const SAID: Record<string, { meta: unknown; description: string }> = {
  create_refund: {
    meta: { approve: { by: 'payments:approve' } },
    description:
      'Refund part of a payment. Runs only after someone holding payments:approve approves it.',
  },
  delete_payment: {
    meta: { confirm: true },
    description: 'Delete a payment. Asks its user to confirm before it runs.',
  },
  update_payment: {
    meta: { confirm: true, approve: { by: 'payments:approve' } },
    description:
      'Void a payment. Asks its user to confirm, and runs only after someone holding payments:approve approves it.',
  },
};

interface ListedTool {
  name: string;
  description?: string;
  _meta?: Record<string, unknown>;
}

function expectSaid(tools: readonly ListedTool[]): void {
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const [name, said] of Object.entries(SAID)) {
    const tool = byName.get(name);
    expect(tool?._meta?.[CONSENT_META], name).toEqual(said.meta);
    expect(tool?.description, name).toBe(said.description);
  }
  // A grant without consent says nothing of it, and its description stays as written.
  const plain = byName.get('get_payment');
  expect(plain?.description).toBe('Get a payment.');
  expect(plain?._meta).toBeDefined();
  expect(plain?._meta?.[CONSENT_META]).toBeUndefined();
}

async function clientV1(): Promise<ClientV1> {
  const client = new ClientV1({ name: 'consent-said-v1', version: '1.0.0' });
  await client.connect(
    new TransportV1(new URL(`${gw.url}/mcp`), { requestInit: { headers: bearer(BOTH_KEY) } }),
  );
  return client;
}

describe('the tools of confirm and approve grants say so in tools/list', () => {
  it('to the SDK v1 client (2025-11-25)', async () => {
    const client = await clientV1();
    try {
      expect(client.getServerVersion()?.name).toBe('consent-approve');
      expectSaid((await client.listTools()).tools as ListedTool[]);
    } finally {
      await client.close();
    }
  });

  it.each([
    ['2026-07-28', () => modernClient(gw.url, BOTH_KEY, undefined)],
    ['2025-11-25', () => legacyClient(gw.url, BOTH_KEY)],
  ])('to the SDK v2 client in %s', async (_era, connect) => {
    const client = await connect();
    try {
      expectSaid((await client.listTools()).tools as ListedTool[]);
    } finally {
      await client.close();
    }
  });
});

describe('the REST listing and the OpenAPI document end the descriptions the same way', () => {
  it('GET /api (the catalog page reads it) gives each tool the same description', async () => {
    const res = await fetch(`${gw.url}/api`, { headers: bearer(BOTH_KEY) });
    expect(res.status).toBe(200);
    const { tools } = (await res.json()) as { tools: ListedTool[] };
    for (const [name, said] of Object.entries(SAID))
      expect(tools.find((t) => t.name === name)?.description, name).toBe(said.description);
  });

  it('GET /openapi.json starts each operation description with it', async () => {
    const res = await fetch(`${gw.url}/openapi.json`, { headers: bearer(BOTH_KEY) });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      paths: Record<string, { post: { description?: string } }>;
    };
    for (const [name, said] of Object.entries(SAID))
      expect(doc.paths[`/api/${name}`]?.post.description, name).toMatch(
        new RegExp(`^${said.description.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      );
  });
});

describe('APPROVAL_REQUIRED says what is asked', () => {
  it('to the SDK v1 client (2025-11-25): the approval in _meta["mcp-beaver/approval"], its message in the text', async () => {
    const client = await clientV1();
    let result: { isError?: boolean; content: { text: string }[]; _meta?: Record<string, unknown> };
    try {
      result = (await client.callTool({
        name: 'create_refund',
        arguments: { payment: 311, amount: 25 },
      })) as typeof result;
    } finally {
      await client.close();
    }
    expect(result.isError).toBe(true);
    const approval = result._meta?.['mcp-beaver/approval'] as Record<string, unknown> | undefined;
    expect(approval).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      url: `${gw.url}/approvals/${String(approval?.id)}`,
      message: 'Refund 25 cents on payment 311',
      scope: 'payments:approve',
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const text = result.content[0]!.text;
    expect(text).toMatch(/^APPROVAL_REQUIRED: /);
    expect(text).toContain(String(approval!.url));
    expect(text).toContain('Asked of the approver: Refund 25 cents on payment 311');
    expect(upstream.requests).toEqual([]);
  });
});
