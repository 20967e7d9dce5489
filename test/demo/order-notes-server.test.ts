/**
 * The demo's own upstream MCP server (specs/demo-mcp/order-notes-server.mjs), through the
 * gateway's connection layer exactly as the demo spec starts it: `node` with the path
 * relative to the spec's folder.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpUpstream } from '../../src/mcp-upstream/mcp-upstream.js';
import { NODE, open } from '../mcp-upstream/upstream-helpers.js';

const SPECS = join(import.meta.dirname, '..', '..', 'specs');

describe('the demo order-notes server over stdio', () => {
  let upstream: McpUpstream;
  beforeAll(() => {
    ({ upstream } = open({
      name: 'order-notes',
      transport: {
        kind: 'command',
        program: NODE,
        args: ['demo-mcp/order-notes-server.mjs'],
        cwd: SPECS,
        env: {},
        parentEnv: process.env,
      },
    }));
  });
  afterAll(() => upstream.close());

  it('shakes hands in the 2025-11-25 era after refusing server/discover', async () => {
    expect(await upstream.connect()).toMatchObject({
      ok: true,
      value: { era: 'legacy', protocolVersion: '2025-11-25' },
    });
  });

  it('lists its two read-only tools', async () => {
    const out = await upstream.listTools();
    expect(out.ok && out.value.map((t) => t.name)).toEqual(['lookup_order_note', 'word_count']);
  });

  it('answers a note as structured content, and null for an order without one', async () => {
    expect(await upstream.callTool('lookup_order_note', { order_id: 7 })).toEqual({
      ok: true,
      value: { order_id: 7, note: 'Refund of the shipping fee promised (late delivery).' },
    });
    expect(await upstream.callTool('lookup_order_note', { order_id: 2 })).toEqual({
      ok: true,
      value: { order_id: 2, note: null },
    });
  });

  it('counts words and characters', async () => {
    expect(await upstream.callTool('word_count', { text: 'Thanks for your  patience!' })).toEqual({
      ok: true,
      value: { words: 4, characters: 26 },
    });
  });

  it('refuses a bad argument as a tool error, and an unknown tool as an rpc error', async () => {
    const bad = await upstream.callTool('lookup_order_note', { order_id: 'seven' });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'tool-error' } });
    const unknown = await upstream.callTool('delete_order', {});
    expect(unknown).toMatchObject({ ok: false, error: { kind: 'rpc-error' } });
  });
});
