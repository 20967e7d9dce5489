/**
 * Issue 41, the 2025-11-25 era end to end: an SDK v1 client that declared only URL
 * elicitation at `initialize` carries that declaration in its sealed session id; calling
 * a `confirm` grant it gets the URL-elicitation-required error (-32042) pointing at the
 * gateway's `/confirm/<id>` page, the same caller confirms there, and the same call made
 * again runs once. Each case asserts what the upstream received.
 */
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  AGENT_KEY,
  answerConfirmation,
  OTHER_AGENT_KEY,
  useConsentGateway,
} from '../helpers/consent.js';
import type { TestGateway } from '../helpers/gateway.js';
import type { Upstream } from '../helpers/upstream.js';

type TextResult = { isError?: boolean; content: { type: string; text: string }[] };

/** An SDK v1 client (2025-11-25) declaring only URL-mode elicitation, as `key`. */
async function urlOnlyClient(url: string, key: string): Promise<ClientV1> {
  const client = new ClientV1(
    { name: 'legacy-url-test', version: '1.0.0' },
    { capabilities: { elicitation: { url: {} } } },
  );
  await client.connect(
    new TransportV1(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

/** The -32042 a call is answered with, as the SDK v1 client throws it. */
async function urlRequired(
  client: ClientV1,
  args: Record<string, unknown>,
): Promise<UrlElicitationRequiredError> {
  const thrown = await client.callTool({ name: 'delete_payment', arguments: args }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(thrown).toBeInstanceOf(UrlElicitationRequiredError);
  return thrown as UrlElicitationRequiredError;
}

describe('confirm on the page for a 2025-era client that declared only URL elicitation', () => {
  let upstream: Upstream;
  let gw: TestGateway;

  useConsentGateway({}, (s) => ({ upstream, gw } = s));

  const sent = (): string[] => upstream.requests.map((r) => `${r.method} ${r.path}`);

  it('the SDK v1 client gets -32042 with /confirm/<id>; confirmed there, the same call made again runs once', async () => {
    const client = await urlOnlyClient(gw.url, AGENT_KEY);
    try {
      const asked = await urlRequired(client, { payment: 811 });
      const [elicitation, ...more] = asked.elicitations;
      expect(more).toEqual([]);
      const id = elicitation!.elicitationId;
      expect(elicitation).toMatchObject({ mode: 'url', url: `${gw.url}/confirm/${id}` });
      expect(elicitation!.message).toMatch(/^Delete payment 811\?/);
      // Repeated while it waits: the same page, nothing sent.
      const again = await urlRequired(client, { payment: 811 });
      expect(again.elicitations[0]!.elicitationId).toBe(id);
      expect(sent()).toEqual([]);

      const answered = await answerConfirmation(gw.url, AGENT_KEY, id, 'confirm');
      expect(answered.status).toBe(200);
      const ran = (await client.callTool({
        name: 'delete_payment',
        arguments: { payment: 811 },
      })) as TextResult;
      expect(ran.isError).toBeFalsy();
      expect(sent()).toEqual(['DELETE /payments/811']);
      // Spent: the next such call is asked anew and sends nothing.
      const anew = await urlRequired(client, { payment: 811 });
      expect(anew.elicitations[0]!.elicitationId).not.toBe(id);
      expect(sent()).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('another caller cannot confirm it (403), and the call made again still waits and sends nothing', async () => {
    const client = await urlOnlyClient(gw.url, AGENT_KEY);
    try {
      const id = (await urlRequired(client, { payment: 812 })).elicitations[0]!.elicitationId;
      const refused = await answerConfirmation(gw.url, OTHER_AGENT_KEY, id, 'confirm');
      expect(refused.status).toBe(403);
      const still = await urlRequired(client, { payment: 812 });
      expect(still.elicitations[0]!.elicitationId).toBe(id);
      expect(sent()).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('declined on the page, the call made again is CONFIRMATION_DECLINED and nothing is sent', async () => {
    const client = await urlOnlyClient(gw.url, AGENT_KEY);
    try {
      const id = (await urlRequired(client, { payment: 813 })).elicitations[0]!.elicitationId;
      expect((await answerConfirmation(gw.url, AGENT_KEY, id, 'decline')).status).toBe(200);
      const declined = (await client.callTool({
        name: 'delete_payment',
        arguments: { payment: 813 },
      })) as TextResult;
      expect(declined.isError).toBe(true);
      expect(declined.content[0]!.text).toContain('CONFIRMATION_DECLINED');
      expect(sent()).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('an approve grant is not sent to the approver’s page: the 2025-era client gets APPROVAL_REQUIRED', async () => {
    const client = await urlOnlyClient(gw.url, AGENT_KEY);
    try {
      const out = await client
        .callTool({ name: 'create_refund', arguments: { payment: 814, amount: 5 } })
        .then(
          (r) => r as TextResult,
          (e: unknown) => e,
        );
      expect(out).not.toBeInstanceOf(McpError);
      expect((out as TextResult).isError).toBe(true);
      expect((out as TextResult).content[0]!.text).toContain('APPROVAL_REQUIRED');
      expect(sent()).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
