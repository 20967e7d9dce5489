/**
 * The text block of a tools/call result (issue 40): within budget-bytes it is the
 * envelope, as the protocol suggests for clients that read only text; over budget-bytes
 * it is the envelope cut to budget-bytes (truncated, with kept counts), so a text-only
 * host still gets data, and the whole envelope is sent once, in structuredContent.
 * Every client of the matrix still reads the whole result: the SDK v2 client in both
 * eras, the SDK v1 client, and the MCP Inspector CLI.
 */
import { describe, expect, it } from 'vitest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { callTool, postToolCall, type Era, type ToolResult } from '../helpers/call-tool.js';
import { hasInspector, runInspector } from '../helpers/inspector-cli.js';
import { skipBecause } from '../helpers/skip-reason.js';
import { answerJson } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const ROWS = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row ${i} "quoted"` }));
const FEW = ROWS.slice(0, 3);
/**
 * Past 64 K characters of envelope the answer is written as bytes from its parts
 * (projection/mcp/dispatch.ts): rows with text past one byte a character (é, an emoji,
 * the cut's own `…`) so that their UTF-8 is what the client must read back.
 */
const LARGE = Array.from({ length: 1500 }, (_, i) => ({
  id: i,
  name: `row ${i} "quoted" café … 🦫`,
  note: 'plain text '.repeat(4),
}));

/** budget-bytes of the spec below. */
const BUDGET = 2000;

const SPEC = (upstream: string): string => `
wrap "text-block" version="1.0.0"
base-url "${upstream}"
limits max-bytes=400000 budget-bytes=${BUDGET}
can list rows {
    describe "Every row."
    path "/rows"
}
can list few {
    describe "Three rows."
    path "/few"
}
can list large {
    describe "Rows past 64 K characters."
    path "/large"
}
`;

let gw: TestGateway;
useGatewayOnUpstream(
  SPEC,
  {
    answer: answerJson((req) => (req.path === '/few' ? FEW : req.path === '/large' ? LARGE : ROWS)),
  },
  (s) => ({ gw } = s),
);

interface Envelope {
  coverage: {
    truncated: boolean;
    bytes: number;
    over_budget: boolean;
    items: { path: string; length: number; kept?: number }[];
  };
  result: unknown;
}

/** The text block read as JSON: an envelope, whole or cut to budget-bytes. */
const textOf = (r: ToolResult): Envelope => JSON.parse(r.content[0]!.text) as Envelope;

/**
 * The text block of a result over budget-bytes: a valid envelope of at most BUDGET
 * bytes, cut by the envelope's rules: coverage first, truncated, the rows from the
 * front with their kept count, the complete result's size.
 */
function expectCutToBudget(r: ToolResult): void {
  const raw = r.content[0]!.text;
  expect(raw.startsWith('{"coverage":')).toBe(true);
  expect(Buffer.byteLength(raw)).toBeLessThanOrEqual(BUDGET);
  const text = textOf(r);
  const rows = text.result as typeof ROWS;
  expect(rows.length).toBeGreaterThan(0);
  expect(rows.length).toBeLessThan(ROWS.length);
  expect(rows).toEqual(ROWS.slice(0, rows.length));
  expect(text.coverage).toEqual({
    truncated: true,
    bytes: Buffer.byteLength(JSON.stringify(ROWS)),
    over_budget: false,
    items: [{ path: '$', length: ROWS.length, kept: rows.length }],
  });
}

describe('a result over budget-bytes', () => {
  it.each<Era>(['modern', 'legacy'])(
    'reaches the SDK v2 client (%s) whole in structuredContent, its text the envelope cut to budget-bytes',
    async (era) => {
      const r = await callTool<Envelope>(gw.url, 'list_rows', {}, { era });
      expect(r.isError).toBe(false);
      expect(r.content).toHaveLength(1);
      expect(r.structuredContent!.result).toEqual(ROWS);
      expect(r.structuredContent!.coverage).toMatchObject({ truncated: false, over_budget: true });
      expectCutToBudget(r);
    },
  );

  it('reaches the SDK v1 client whole in structuredContent, its text the envelope cut to budget-bytes', async () => {
    const client = new ClientV1({ name: 'test-v1', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(`${gw.url}/mcp`)));
    try {
      const r = (await client.callTool({
        name: 'list_rows',
        arguments: {},
      })) as ToolResult<Envelope>;
      expect(r.structuredContent!.result).toEqual(ROWS);
      expectCutToBudget(r);
    } finally {
      await client.close();
    }
  });

  it.skipIf(
    skipBecause(
      !hasInspector,
      'the MCP Inspector CLI is not installed yet (npm run check:inspector installs it; CI runs this file on Node 24 after that step)',
    ),
  )(
    'reaches the MCP Inspector CLI whole in structuredContent, its text the envelope cut to budget-bytes',
    async () => {
      const run = await runInspector(`${gw.url}/mcp`, [
        '--method',
        'tools/call',
        '--tool-name',
        'list_rows',
      ]);
      expect(run.code).toBe(0);
      const out = JSON.parse(run.stdout) as ToolResult<Envelope>;
      expect(out.structuredContent!.result).toEqual(ROWS);
      expectCutToBudget(out);
    },
  );

  it('is sent once whole: the MCP answer is the REST body plus at most budget-bytes of escaped text', async () => {
    const rest = await postJson(`${gw.url}/api/list_rows`, {});
    const mcp = await postToolCall(gw.url, 'list_rows');
    expect(rest.status).toBe(200);
    expect(mcp.text).toContain(rest.text);
    expect(mcp.text.split(rest.text)).toHaveLength(2);
    // The rows' quotes are escaped in the text copy: at most two bytes for each.
    expect(mcp.text.length).toBeLessThan(rest.text.length + 2 * BUDGET + 500);
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

describe('a result past 64 K characters, whose answer is written as bytes from its parts', () => {
  it.each<Era>(['modern', 'legacy'])(
    'reaches the SDK v2 client (%s) whole in structuredContent, its text a valid envelope cut to budget-bytes',
    async (era) => {
      const r = await callTool<Envelope>(gw.url, 'list_large', {}, { era });
      expect(r.isError).toBe(false);
      expect(JSON.stringify(LARGE).length).toBeGreaterThan(64 * 1024);
      expect(r.structuredContent!.result).toEqual(LARGE);
      expect(Buffer.byteLength(r.content[0]!.text)).toBeLessThanOrEqual(BUDGET);
      const text = textOf(r);
      expect(text.coverage.truncated).toBe(true);
      // Rows from the front; the last one kept may itself be cut (its note shortened).
      const rows = text.result as typeof LARGE;
      expect(rows.length).toBeGreaterThan(1);
      expect(rows.slice(0, -1)).toEqual(LARGE.slice(0, rows.length - 1));
      expect(rows.at(-1)!.id).toBe(rows.length - 1);
    },
  );

  it('is labelled as a small answer is, and says the same as the REST body, in JSON and on an event stream', async () => {
    const small = await postToolCall(gw.url, 'list_few');
    const large = await postToolCall(gw.url, 'list_large');
    expect(large.status).toBe(200);
    expect(large.headers.get('content-type')).toBe(small.headers.get('content-type'));
    expect(large.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // The REST body of a large result is written from its parts too.
    const rest = await postJson(`${gw.url}/api/list_large`, {});
    expect(rest.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(rest.headers.get('content-length'))).toBe(Buffer.byteLength(rest.text));
    expect((rest.json as Envelope).result).toEqual(LARGE);
    const answer = large.json as { result: { structuredContent: unknown } };
    expect(answer.result.structuredContent).toEqual(rest.json);
    expect(Number(large.headers.get('content-length'))).toBe(Buffer.byteLength(large.text));

    const streamed = await postToolCall(
      gw.url,
      'list_large',
      {},
      {
        headers: { accept: 'text/event-stream' },
      },
    );
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    expect(streamed.text).toBe(`event: message\ndata: ${large.text}\n\n`);
  });
});
