/**
 * Resources, prompts and completions as the official SDK clients see them: v2 pinned to
 * 2026-07-28, v2 in legacy mode, and v1 (2025-11-25 handshake). Each lists, reads and
 * gets through its own schemas, so a result shape the SDK refuses fails here.
 */
import { describe, expect, it } from 'vitest';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestGateway } from '../helpers/gateway.js';
import { useHelpdeskOnUpstream } from '../helpers/helpdesk-gateway.js';
import type { Upstream } from '../helpers/upstream.js';

const GUIDE = '# Helpdesk guide\n\nAnswer within a day.\n';

let upstream: Upstream;
let gw: TestGateway;

// Open (no keys): the SDK clients connect without a token.
useHelpdeskOnUpstream(
  {
    name: 'helpdesk-clients',
    access: false,
    triageDescribe: 'Read one ticket and propose a priority.',
  },
  { guide: GUIDE },
  (s) => ({ upstream, gw } = s),
);

/** What the three clients share, as the tests use it. */
interface AnyClient {
  listResources(): Promise<{ resources: { uri: string; name: string; mimeType?: string }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string; name: string }[] }>;
  readResource(p: { uri: string }): Promise<{
    contents: { uri: string; mimeType?: string; text?: string; blob?: string }[];
  }>;
  listPrompts(): Promise<{
    prompts: { name: string; arguments?: { name: string; required?: boolean }[] }[];
  }>;
  getPrompt(p: { name: string; arguments?: Record<string, string> }): Promise<{
    messages: { role: string; content: { type: string; text?: string; resource?: unknown } }[];
  }>;
  complete(p: {
    ref: { type: 'ref/prompt'; name: string };
    argument: { name: string; value: string };
  }): Promise<{ completion: { values: string[]; total?: number; hasMore?: boolean } }>;
  getServerCapabilities(): Record<string, unknown> | undefined;
  close(): Promise<void>;
}

async function connectV2(mode: 'legacy' | { pin: string }): Promise<AnyClient> {
  const client = new ClientV2(
    { name: 'test-v2', version: '1.0.0' },
    { versionNegotiation: { mode } },
  );
  await client.connect(new TransportV2(new URL(`${gw.url}/mcp`)));
  return client as unknown as AnyClient;
}

async function connectV1(): Promise<AnyClient> {
  const client = new ClientV1({ name: 'test-v1', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(`${gw.url}/mcp`)));
  return client as unknown as AnyClient;
}

const clients: [string, () => Promise<AnyClient>][] = [
  ['SDK v2 pinned to 2026-07-28', () => connectV2({ pin: '2026-07-28' })],
  ['SDK v2 in legacy mode', () => connectV2('legacy')],
  ['SDK v1 (2025-11-25 handshake)', connectV1],
];

describe.each(clients)('%s', (_name, connect) => {
  it('learns the resources, prompts and completions capabilities', async () => {
    const c = await connect();
    try {
      expect(c.getServerCapabilities()).toMatchObject({
        resources: { listChanged: false },
        prompts: { listChanged: false },
        completions: {},
      });
    } finally {
      await c.close();
    }
  });

  it('lists the document and the ticket template, and reads both', async () => {
    const c = await connect();
    try {
      const { resources } = await c.listResources();
      expect(resources.map((r) => [r.uri, r.name, r.mimeType])).toEqual([
        ['docs://helpdesk/guide', 'guide', 'text/markdown'],
      ]);
      const { resourceTemplates } = await c.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['helpdesk://tickets/{id}']);
      const guide = await c.readResource({ uri: 'docs://helpdesk/guide' });
      expect(guide.contents).toEqual([
        { uri: 'docs://helpdesk/guide', mimeType: 'text/markdown', text: GUIDE },
      ]);
      const before = upstream.requests.length;
      const ticket = await c.readResource({ uri: 'helpdesk://tickets/12' });
      expect(upstream.requests.length).toBe(before + 1);
      expect(JSON.parse(ticket.contents[0]!.text!)).toMatchObject({
        result: { id: 12, subject: 'Printer on fire' },
      });
    } finally {
      await c.close();
    }
  });

  it('lists the triage prompt, gets it with the ticket embedded, and completes its tone', async () => {
    const c = await connect();
    try {
      const { prompts } = await c.listPrompts();
      expect(prompts).toMatchObject([
        {
          name: 'triage-ticket',
          arguments: [
            { name: 'id', required: true },
            { name: 'tone', required: false },
          ],
        },
      ]);
      const got = await c.getPrompt({
        name: 'triage-ticket',
        arguments: { id: '3', tone: 'formal' },
      });
      expect(got.messages[0]).toEqual({
        role: 'user',
        content: { type: 'text', text: 'Triage ticket 3 in a formal tone.' },
      });
      expect(got.messages[1]!.content).toMatchObject({
        type: 'resource',
        resource: { uri: 'helpdesk://tickets/3', mimeType: 'application/json' },
      });
      const done = await c.complete({
        ref: { type: 'ref/prompt', name: 'triage-ticket' },
        argument: { name: 'tone', value: 'fr' },
      });
      expect(done.completion).toEqual({ values: ['friendly'], total: 1, hasMore: false });
    } finally {
      await c.close();
    }
  });

  it('surfaces a URI nothing serves as an error naming the URI', async () => {
    const c = await connect();
    try {
      await expect(c.readResource({ uri: 'docs://helpdesk/missing' })).rejects.toThrow(
        /docs:\/\/helpdesk\/missing/,
      );
    } finally {
      await c.close();
    }
  });
});
