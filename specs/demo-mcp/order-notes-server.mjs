#!/usr/bin/env node
// @ts-check
// The demo's own upstream MCP server (specs/demo.mcp.kdl starts it as an `mcp-server`
// stdio child): newline-delimited JSON-RPC 2.0 on stdin/stdout, the 2025-era handshake,
// two tools. Written without an SDK, to show how little an upstream needs to speak and
// so the demo carries no server package. Plain JavaScript beside the spec, not src/: the
// gateway starts it with `node`, from a checkout (tsx, nothing built), from dist/ and
// from the npm package alike, its working directory the spec's folder.
import { createInterface } from 'node:readline';

const PROTOCOLS = ['2025-11-25', '2025-06-18', '2025-03-26'];

/** Notes the support team keeps on orders 1–20 of the demo database (orders-db.seed.sql). */
const NOTES = new Map([
  [1, 'Customer asked for gift wrapping; done.'],
  [3, 'Delivery address corrected by phone on 2024-02-11.'],
  [7, 'Refund of the shipping fee promised (late delivery).'],
  [12, 'Fragile: ship with extra padding.'],
  [18, 'Customer prefers email over phone.'],
]);

const TOOLS = [
  {
    name: 'lookup_order_note',
    description: "The support team's note on one order, if it has one.",
    inputSchema: {
      type: 'object',
      properties: { order_id: { type: 'integer', minimum: 1 } },
      required: ['order_id'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'word_count',
    description: 'Words and characters of a text (e.g. a draft answer to a customer).',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
];

/** @param {unknown} v */
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A tool result: structured content and the same as a text block. */
const result = (/** @type {Record<string, unknown>} */ value) => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  structuredContent: value,
  isError: false,
});

const toolError = (/** @type {string} */ text) => ({
  content: [{ type: 'text', text }],
  isError: true,
});

/** @param {string} name @param {Record<string, unknown>} args */
function callTool(name, args) {
  if (name === 'lookup_order_note') {
    const id = args.order_id;
    if (!Number.isInteger(id) || Number(id) < 1) return toolError('order_id: a positive integer');
    const note = NOTES.get(Number(id));
    return result({ order_id: id, note: note ?? null });
  }
  if (name === 'word_count') {
    if (typeof args.text !== 'string') return toolError('text: a string');
    const words = args.text.split(/\s+/).filter(Boolean).length;
    return result({ words, characters: [...args.text].length });
  }
  return undefined;
}

/**
 * The answer to one request (undefined for a notification).
 * @param {Record<string, unknown>} msg
 */
function answer(msg) {
  const { id, method } = msg;
  if (id === undefined || id === null) return undefined;
  const params = isObject(msg.params) ? /** @type {Record<string, unknown>} */ (msg.params) : {};
  const ok = (/** @type {unknown} */ value) => ({ jsonrpc: '2.0', id, result: value });
  const fail = (/** @type {number} */ code, /** @type {string} */ message) => ({
    jsonrpc: '2.0',
    id,
    error: { code, message },
  });
  switch (method) {
    case 'initialize': {
      const asked = String(params.protocolVersion);
      return ok({
        protocolVersion: PROTOCOLS.includes(asked) ? asked : PROTOCOLS[0],
        capabilities: { tools: {} },
        serverInfo: { name: 'helpdesk-order-notes', version: '1.0.0' },
      });
    }
    case 'ping':
      return ok({});
    case 'tools/list':
      return ok({ tools: TOOLS });
    case 'tools/call': {
      const args = isObject(params.arguments)
        ? /** @type {Record<string, unknown>} */ (params.arguments)
        : {};
      const out = callTool(String(params.name), args);
      return out ? ok(out) : fail(-32602, `unknown tool: ${String(params.name)}`);
    }
    default:
      return fail(-32601, `method not found: ${String(method)}`);
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    process.stdout.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } })}\n`,
    );
    continue;
  }
  const out = isObject(msg) ? answer(msg) : undefined;
  if (out) process.stdout.write(`${JSON.stringify(out)}\n`);
}
