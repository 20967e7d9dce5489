import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ImportResult } from '../../src/import/openapi/import-openapi.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { okJson, startUpstream, type Upstream } from '../helpers/upstream.js';
import { checkErrors, draft, GITHUB } from './draft-helpers.js';

// GitHub's REST description imported with --toolsets=tag and served: what a client
// registered at /mcp/<toolset> lists is that toolset's tools, each list small enough for
// the clients that refuse more than 128. Listing calls no upstream; base-url points at a
// local one all the same, so nothing could reach api.github.com.
describe("GitHub's REST description imported with --toolsets=tag, served", () => {
  let upstream: Upstream;
  let imported: ImportResult;
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = await startUpstream(okJson);
    imported = await draft(GITHUB, { toolsets: 'tag', baseUrl: upstream.url });
    expect(checkErrors(imported.text)).toEqual([]);
    gw = await startGateway(imported.text);
  }, 180_000);

  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
  });

  async function listed(path: string, mode: 'auto' | 'legacy'): Promise<string[]> {
    const client = new Client(
      { name: 'toolsets-test', version: '1.0.0' },
      { versionNegotiation: { mode } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}${path}`)));
    try {
      return (await client.listTools()).tools.map((t) => t.name);
    } finally {
      await client.close();
    }
  }

  it.each(['auto', 'legacy'] as const)(
    'lists at /mcp/<toolset> exactly the tag toolset the importer wrote, at most 128 tools, for every toolset (%s era)',
    async (mode) => {
      const toolsets = imported.summary.toolsets!.toolsets;
      expect(toolsets).toHaveLength(45);
      for (const t of toolsets) {
        const names = await listed(`/mcp/${t.name}`, mode);
        expect(names, t.name).toEqual(t.tools);
        expect(names.length, t.name).toBeLessThanOrEqual(128);
      }
      // /mcp still lists every grant: the toolsets only narrow what their URLs offer.
      expect(await listed('/mcp', mode)).toHaveLength(imported.summary.imported);
    },
    120_000,
  );
});
