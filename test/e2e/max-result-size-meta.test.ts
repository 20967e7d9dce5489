/**
 * Every tool in tools/list tells the client how large its result can be:
 * `_meta["anthropic/maxResultSizeChars"]` is the grant's `max-bytes`
 * (spec-language.md, "Result bounds for clients"), in both protocol eras.
 */
import { describe, expect, it } from 'vitest';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import type { TestGateway } from '../helpers/gateway.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';
import { issuesServerHeader } from '../helpers/spec-fixtures.js';
import { LEGACY, MODERN } from '../helpers/mcp-wire.js';

// Written out, not imported from src/: the test pins the key clients read.
const KEY = 'anthropic/maxResultSizeChars';

const SPEC = (upstream: string): string => `${issuesServerHeader(upstream)}
can list issues {
    describe "List issues of a repository."
    path "/repos/{owner}/{repo}/issues"
    max-bytes 4096
}
can get issue {
    describe "Get one issue."
    path "/repos/{owner}/{repo}/issues/{number}" {
        number "integer" min=1
    }
}`;

let gw: TestGateway;

useGatewayOnUpstream(
  SPEC,
  {
    answer: (_req, res) => {
      res.end('[]');
    },
    env: { ISSUES_TOKEN: 't' },
  },
  (s) => ({ gw } = s),
);

describe.each([
  ['2026-07-28', { pin: MODERN }],
  ['2025-11-25', 'legacy'],
] as const)('the SDK v2 client in the %s era', (version, mode) => {
  it("reads each tool's max-bytes as _meta maxResultSizeChars: its own, or the default 262144", async () => {
    const client = new ClientV2(
      { name: 'test-v2', version: '1.0.0' },
      { versionNegotiation: { mode } },
    );
    await client.connect(new TransportV2(new URL(`${gw.url}/mcp`)));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(version === MODERN ? MODERN : LEGACY);
      const { tools } = await client.listTools();
      expect(tools.map((t) => [t.name, t._meta?.[KEY]])).toEqual([
        ['list_issues', 4096],
        ['get_issue', 262_144],
      ]);
    } finally {
      await client.close();
    }
  });
});
