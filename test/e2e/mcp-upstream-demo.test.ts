/**
 * The demo's upstream MCP grant (`read_order_note`, served by specs/demo-mcp/order-notes-server.mjs
 * as a stdio child) over REST and both MCP eras. test/ship/demo.test.ts calls it once
 * through `npm start`; here the demo's own `mcp-server` node and grant, cut out of
 * specs/demo.mcp.kdl as written, are served without the demo's database and API.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type Era } from '../helpers/call-tool.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { childrenRunning, eventually, gatewayEnv, rest } from '../helpers/stdio-children.js';

const DEMO = fileURLToPath(new URL('../../specs/demo.mcp.kdl', import.meta.url));

/** From `mcp-server "order-notes"` to the end of the `can read order-note` block. */
function orderNotesPart(text: string): string {
  const from = text.indexOf('mcp-server "order-notes"');
  const grant = text.indexOf('can read order-note {', from);
  const end = text.indexOf('\n}\n', grant);
  expect([from, grant, end].every((i) => i >= 0)).toBe(true);
  return text.slice(from, end + 3);
}

let gw: TestGateway;

beforeAll(async () => {
  const spec = `wrap "demo-notes" version="1.0.0"\n\n${orderNotesPart(readFileSync(DEMO, 'utf8'))}`;
  // Placed as the demo's own file: the child's working directory is specs/, `node` on PATH.
  gw = await startGateway(spec, { file: DEMO, env: gatewayEnv() });
  await eventually(async () => {
    const r = (await (await fetch(`${gw.url}/readyz`)).json()) as {
      servers?: Record<string, string>;
    };
    return r.servers?.['order-notes'] === 'up';
  }, 30_000);
});

afterAll(async () => {
  await gw?.close();
  expect(childrenRunning('order-notes-server.mjs')).toEqual([]);
});

interface Envelope<R = unknown> {
  coverage: Record<string, unknown>;
  result: R;
}

describe("the demo's read_order_note", () => {
  it('answers the note of an order over REST', async () => {
    const r = await rest(gw.url, 'read_order_note', { order_id: 7 });
    expect(r.status).toBe(200);
    expect((r.json as Envelope<{ note: string | null }>).result.note).toBe(
      'Refund of the shipping fee promised (late delivery).',
    );
  });

  for (const era of ['modern', 'legacy'] as Era[])
    it(`answers over MCP (${era}), null for an order without a note`, async () => {
      const out = await callTool<Envelope<{ note: string | null }>>(
        gw.url,
        'read_order_note',
        { order_id: 12 },
        { era },
      );
      expect(out.isError).toBe(false);
      expect(out.structuredContent?.result.note).toBe('Fragile: ship with extra padding.');
      const none = await callTool<Envelope<{ note: string | null }>>(
        gw.url,
        'read_order_note',
        { order_id: 2 },
        { era },
      );
      expect(none.structuredContent?.result.note).toBeNull();
    });

  it('refuses an order id out of its bounds before the upstream', async () => {
    const r = await rest(gw.url, 'read_order_note', { order_id: 0 });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
  });
});
