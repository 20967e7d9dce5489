import { describe, expect, it } from 'vitest';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestGateway } from '../helpers/gateway.js';
import { answerJson, type Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';
import {
  ACME_ONLY,
  issueCommentGrant,
  issuesServerHeader,
  listIssuesGrant,
} from '../helpers/spec-fixtures.js';
import { ENVELOPE_GUIDE } from '../../src/compiler/output-schema.js';

const TOKEN = 'upstream-secret-token-42';

function spec(upstream: string): string {
  return [
    issuesServerHeader(upstream),
    ACME_ONLY,
    listIssuesGrant({ perPage: true }),
    issueCommentGrant(),
  ].join('\n');
}

let upstream: Upstream;
let gw: TestGateway;

useGatewayOnUpstream(
  spec,
  {
    answer: answerJson((req) => [{ number: 1, title: 'first', path: req.path, query: req.query }]),
    env: { ISSUES_TOKEN: TOKEN },
  },
  (s) => ({ upstream, gw } = s),
);

type AnyClient = {
  listTools(): Promise<{
    tools: {
      name: string;
      title?: string;
      annotations?: Record<string, unknown>;
      inputSchema: unknown;
      outputSchema?: unknown;
    }[];
  }>;
  callTool(p: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
};

async function connectV2(
  mode: 'auto' | 'legacy' | { pin: string },
): Promise<AnyClient & { client: ClientV2 }> {
  const client = new ClientV2(
    { name: 'test-v2', version: '1.0.0' },
    { versionNegotiation: { mode } },
  );
  await client.connect(new TransportV2(new URL(`${gw.url}/mcp`)));
  return Object.assign(client as unknown as AnyClient, { client });
}

async function connectV1(): Promise<AnyClient> {
  const client = new ClientV1({ name: 'test-v1', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(`${gw.url}/mcp`)));
  return client as unknown as AnyClient;
}

describe('protocol era negotiation with the SDK v2 client', () => {
  it.each([
    [{ pin: '2026-07-28' }, '2026-07-28'],
    ['auto', '2026-07-28'],
    ['legacy', '2025-11-25'],
  ] as const)(
    'mode %j settles on %s and learns the server identity and instructions',
    async (mode, version) => {
      const c = await connectV2(mode);
      try {
        expect(c.client.getNegotiatedProtocolVersion()).toBe(version);
        expect(c.client.getServerVersion()).toMatchObject({
          name: 'issues-test',
          version: '2.1.0',
        });
        // The spec's describe, then the envelope explained once for every tool.
        expect(c.client.getInstructions()).toBe(
          `Read issues of the acme organisation.\n\n${ENVELOPE_GUIDE}`,
        );
      } finally {
        await c.close();
      }
    },
  );
});

const clients: [string, () => Promise<AnyClient>][] = [
  ['SDK v2 pinned to 2026-07-28', () => connectV2({ pin: '2026-07-28' })],
  ['SDK v2 in auto negotiation', () => connectV2('auto')],
  ['SDK v2 in legacy mode', () => connectV2('legacy')],
  ['SDK v1 (2025-11-25 handshake)', connectV1],
];

describe.each(clients)('an official MCP client: %s', (_name, connect) => {
  it('lists the grants as tools in spec order with their schemas and the hints a client cannot infer', async () => {
    const c = await connect();
    try {
      const { tools } = await c.listTools();
      expect(tools.map((t) => t.name)).toEqual(['list_issues', 'create_issue_comment']);
      expect(tools[0]).toMatchObject({
        title: 'List issues',
        inputSchema: { type: 'object', additionalProperties: false, required: ['owner', 'repo'] },
      });
      // Hints equal to MCP's defaults are left out (a read-only tool is idempotent and not
      // destructive by definition; open world is the default), and the untyped envelope's
      // outputSchema is said once in the server's instructions, not per tool.
      expect(tools[0]!.annotations).toEqual({ readOnlyHint: true });
      expect(tools[0]!.outputSchema).toBeUndefined();
      expect(tools[1]!.annotations).toEqual({ destructiveHint: false });
    } finally {
      await c.close();
    }
  });

  it('calls a tool against the real upstream and gets the envelope as structuredContent', async () => {
    const c = await connect();
    const before = upstream.requests.length;
    try {
      const result = (await c.callTool({
        name: 'list_issues',
        arguments: { owner: 'acme', repo: 'rocket', state: 'closed' },
      })) as {
        isError?: boolean;
        structuredContent?: { coverage: { truncated: boolean; items: unknown[] }; result: unknown };
        content: { type: string; text: string }[];
      };
      expect(result.isError).toBe(false);
      expect(result.structuredContent?.coverage).toMatchObject({
        truncated: false,
        items: [{ path: '$', length: 1 }],
      });
      expect(result.structuredContent?.result).toEqual([
        {
          number: 1,
          title: 'first',
          path: '/api/repos/acme/rocket/issues',
          query: 'state=closed&per_page=30',
        },
      ]);
      expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
      expect(upstream.requests.length).toBe(before + 1);
      expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    } finally {
      await c.close();
    }
  });

  it('gets isError naming the argument when restrict denies it, and the upstream is not called', async () => {
    const c = await connect();
    const before = upstream.requests.length;
    try {
      const result = (await c.callTool({
        name: 'list_issues',
        arguments: { owner: 'evil', repo: 'rocket' },
      })) as {
        isError?: boolean;
        content: { text: string }[];
        structuredContent?: unknown;
      };
      expect(result.isError).toBe(true);
      expect(result.content[0]!.text).toContain('DENIED_BY_RESTRICT');
      expect(result.content[0]!.text).toContain('owner');
      expect(result.structuredContent).toBeUndefined();
      expect(upstream.requests.length).toBe(before);
    } finally {
      await c.close();
    }
  });
});
