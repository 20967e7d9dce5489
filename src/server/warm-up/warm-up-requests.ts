/**
 * One round of the warm-up's requests, as clients send them: MCP 2026-07-28 (the `_meta`
 * and the mirrored Mcp-Method/Mcp-Name headers) and 2025-11-25 tools/call and
 * tools/list, and REST `POST /api/<tool>`. Made once; the driver sends them in turn.
 */
import { WARM_UP_CALLS } from './warm-up-spec.js';

export interface WarmUpRequest {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** What a correct answer carries (a refusal would warm the wrong path). */
  readonly expect: string;
}

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const JSON_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'mcp-beaver-warm-up', version: '1.0.0' },
};

function modern(method: string, params: object, name?: string): WarmUpRequest {
  return {
    path: '/mcp',
    headers: {
      ...JSON_HEADERS,
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(name && { 'mcp-name': name }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } }),
    expect: method === 'tools/call' ? '"isError":false' : '"tools"',
  };
}

function legacy(method: string, params: object): WarmUpRequest {
  return {
    path: '/mcp',
    headers: { ...JSON_HEADERS, 'mcp-protocol-version': LEGACY },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    expect: method === 'tools/call' ? '"isError":false' : '"tools"',
  };
}

/** In the proportions of a busy gateway: mostly calls, on both surfaces, some listings. */
export function warmUpRound(): readonly WarmUpRequest[] {
  const round: WarmUpRequest[] = [];
  for (const { tool, args } of WARM_UP_CALLS) {
    round.push(modern('tools/call', { name: tool, arguments: args }, tool));
    round.push({
      path: `/api/${tool}`,
      headers: JSON_HEADERS,
      body: JSON.stringify(args),
      expect: '"result":',
    });
    round.push(legacy('tools/call', { name: tool, arguments: args }));
  }
  round.push(modern('tools/list', {}));
  round.push(legacy('tools/list', {}));
  return round;
}
