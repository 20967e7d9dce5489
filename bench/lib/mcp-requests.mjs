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

/**
 * A 2025-era session with a stateful Streamable HTTP server (the `initialize` handshake
 * and its `notifications/initialized`); the headers every later request carries.
 */
export async function openLegacySession(mcpUrl) {
  const headers = { ...JSON_HEADERS, 'mcp-protocol-version': LEGACY };
  const init = await fetch(mcpUrl, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: 'mcp-beaver-bench', version: '1.0.0' },
      },
    }),
  });
  const said = await init.text();
  const session = init.headers.get('mcp-session-id');
  if (init.status !== 200 || !session)
    throw new Error(`${mcpUrl}: initialize answered ${init.status} ${said.slice(0, 300)}`);
  const withSession = { ...headers, 'mcp-session-id': session };
  const done = await fetch(mcpUrl, {
    method: 'POST',
    headers: withSession,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await done.text();
  if (done.status !== 202 && done.status !== 200)
    throw new Error(`${mcpUrl}: notifications/initialized answered ${done.status}`);
  return withSession;
}
