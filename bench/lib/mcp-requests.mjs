// The MCP requests the benchmarks send, in both eras, as {url, headers, body}.
export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';

export const JSON_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

// clientInfo is optional in the 2026-07-28 `_meta`, but Google MCP Toolbox answers 400
// without it; every subject gets the same request.
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'mcp-beaver-bench', version: '1.0.0' },
};

/** A 2026-07-28 request: `_meta` in params, mirrored Mcp-Method / Mcp-Name headers. */
export function modernRequest(url, method, params = {}, name) {
  return {
    url: `${url}/mcp`,
    headers: {
      ...JSON_HEADERS,
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(name && { 'mcp-name': name }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } }),
  };
}

/** A 2025-11-25 request after the (stateless) initialize handshake. */
export function legacyRequest(url, method, params) {
  return {
    url: `${url}/mcp`,
    headers: { ...JSON_HEADERS, 'mcp-protocol-version': LEGACY },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params && { params }) }),
  };
}

export function eraRequest(era, url, method, params, name) {
  return era === 'modern'
    ? modernRequest(url, method, params, name)
    : legacyRequest(url, method, params);
}
