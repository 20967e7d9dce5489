/**
 * The text block of a tools/call result (issue 40): within budget-bytes it is the
 * envelope, as the protocol suggests for clients that read only text; over budget-bytes
 * the result is sent once, in structuredContent, and the text holds the coverage and
 * says where the result is. Every client of the matrix still reads the whole result:
 * the SDK v2 client in both eras, the SDK v1 client, and the MCP Inspector CLI.
 */
import { describe, expect, it } from 'vitest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { callTool, postToolCall, type Era, type ToolResult } from '../helpers/call-tool.js';
import { hasInspector, runInspector } from '../helpers/inspector-cli.js';
import { answerJson } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const ROWS = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row ${i} "quoted"` }));
const FEW = ROWS.slice(0, 3);

const SPEC = (upstream: string): string => `
wrap "text-block" version="1.0.0"
base-url "${upstream}"
limits max-bytes=100000 budget-bytes=2000
can list rows {
    describe "Every row."
    path "/rows"
}
can list few {
    describe "Three rows."
    path "/few"
}
`;

let gw: TestGateway;
useGatewayOnUpstream(
  SPEC,
  { answer: answerJson((req) => (req.path === '/few' ? FEW : ROWS)) },
  (s) => ({ gw } = s),
);

interface Envelope {
  coverage: { truncated: boolean; bytes: number; over_budget: boolean; items: unknown[] };
  result: unknown;
}

/** The text block read as JSON: the envelope, or its coverage and where the result is. */
const textOf = (r: ToolResult): Record<string, unknown> =>
  JSON.parse(r.content[0]!.text) as Record<string, unknown>;

describe('a result over budget-bytes', () => {
  it.each<Era>(['modern', 'legacy'])(
    'reaches the SDK v2 client (%s) whole in structuredContent, its text naming the coverage and where the result is',
    async (era) => {
      const r = await callTool<Envelope>(gw.url, 'list_rows', {}, { era });
      expect(r.isError).toBe(false);
      expect(r.structuredContent!.result).toEqual(ROWS);
      expect(r.structuredContent!.coverage).toMatchObject({ truncated: false, over_budget: true });
      const text = textOf(r);
      expect(text.coverage).toEqual(r.structuredContent!.coverage);
      expect(text.result_in).toBe('structuredContent');
      expect(text).not.toHaveProperty('result');
    },
  );

  it('reaches the SDK v1 client whole in structuredContent', async () => {
    const client = new ClientV1({ name: 'test-v1', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(`${gw.url}/mcp`)));
    try {
      const r = (await client.callTool({
        name: 'list_rows',
        arguments: {},
      })) as ToolResult<Envelope>;
      expect(r.structuredContent!.result).toEqual(ROWS);
      expect(textOf(r).result_in).toBe('structuredContent');
    } finally {
      await client.close();
    }
  });

  it.skipIf(!hasInspector)('reaches the MCP Inspector CLI whole in structuredContent', async () => {
    const run = await runInspector(`${gw.url}/mcp`, [
      '--method',
      'tools/call',
      '--tool-name',
      'list_rows',
    ]);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as ToolResult<Envelope>;
    expect(out.structuredContent!.result).toEqual(ROWS);
  });

  it('is sent once: the MCP answer is about the REST body, not twice it', async () => {
    const rest = await postJson(`${gw.url}/api/list_rows`, {});
    const mcp = await postToolCall(gw.url, 'list_rows');
    expect(rest.status).toBe(200);
    expect(mcp.text.length).toBeLessThan(rest.text.length * 1.3);
    expect(mcp.text).toContain(rest.text);
  });
});

describe('a result within budget-bytes', () => {
  it.each<Era>(['modern', 'legacy'])(
    'carries the whole envelope in its text too, equal to structuredContent (%s)',
    async (era) => {
      const r = await callTool<Envelope>(gw.url, 'list_few', {}, { era });
      expect(r.structuredContent!.coverage.over_budget).toBe(false);
      expect(textOf(r)).toEqual(r.structuredContent);
      expect(r.structuredContent!.result).toEqual(FEW);
    },
  );
});
