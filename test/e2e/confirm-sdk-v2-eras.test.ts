/**
 * Issue 41 with the SDK v2 client (@modelcontextprotocol/client) declaring form
 * elicitation with a handler: in the 2025 era it initializes, keeps the session id and
 * is asked on its call's stream; pinned to 2026-07-28 it is asked as before (MRTR). The
 * upstream's record says a yes ran the call once.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { AGENT_KEY, useConsentGateway } from '../helpers/consent.js';
import type { TestGateway } from '../helpers/gateway.js';
import { MODERN } from '../helpers/mcp-wire.js';
import type { Upstream } from '../helpers/upstream.js';

let upstream: Upstream;
let gw: TestGateway;
useConsentGateway({}, (s) => ({ upstream, gw } = s));

async function clientV2(mode: 'legacy' | { pin: string }, seen: unknown[]): Promise<Client> {
  const client = new Client(
    { name: 'v2-eras', version: '1.0.0' },
    { versionNegotiation: { mode }, capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    seen.push(request.params);
    return { action: 'accept', content: { confirm: true } };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${AGENT_KEY}` } },
    }),
  );
  return client;
}

describe('the SDK v2 client declaring form elicitation', () => {
  for (const [era, mode] of [
    ['the 2025 era', 'legacy'],
    ['2026-07-28', { pin: MODERN }],
  ] as const) {
    it(`is asked in ${era}, and its yes runs the call once`, async () => {
      const seen: unknown[] = [];
      const client = await clientV2(mode, seen);
      let result: { isError?: boolean };
      try {
        result = (await client.callTool({
          name: 'delete_payment',
          arguments: { payment: 71 },
        })) as { isError?: boolean };
      } finally {
        await client.close();
      }
      expect(seen).toEqual([
        expect.objectContaining({ message: 'Delete payment 71? This cannot be undone.' }),
      ]);
      expect(result.isError).toBe(false);
      expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'DELETE /payments/71',
      ]);
    });
  }
});
