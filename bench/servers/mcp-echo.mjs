// A small, fast MCP server with one tool, `echo`, for measuring the gateway's own cost of
// an upstream MCP call (section 9, bench/mcp-call-instructions.mjs) without the upstream
// being the bottleneck: server-everything's Streamable HTTP (SDK v1) manages about 1,000
// calls/s on this machine, so a gateway in front of it idles between calls and its CPU per
// call is not comparable with the stdio child's at 3,000 calls/s.
//
//   node bench/servers/mcp-echo.mjs --transport http --answer sse|json
//   node bench/servers/mcp-echo.mjs --transport stdio
//
// It speaks the 2025-era protocol only (`server/discover` is refused, as server-everything
// refuses it, so the gateway's `auto` initializes): over HTTP a session per `initialize`
// (`Mcp-Session-Id`, required on every later POST), each answer either as an event stream
// written as the SDK writes it (the headers and one `message` event, then the end of the
// stream) or as one application/json body; over stdio one JSON line per message. Over HTTP
// it prints {"url"} on stdout once it listens.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    transport: { type: 'string', default: 'http' },
    answer: { type: 'string', default: 'sse' },
  },
});
if (!['http', 'stdio'].includes(opts.transport) || !['sse', 'json'].includes(opts.answer))
  throw new Error('--transport http|stdio, --answer sse|json');

const VERSION = '2025-11-25';
const ECHO_TOOL = {
  name: 'echo',
  description: 'Echoes back the input',
  inputSchema: {
    type: 'object',
    properties: { message: { type: 'string', description: 'Message to echo' } },
    required: ['message'],
  },
};

/** The response to one JSON-RPC request (undefined for a notification). */
function answer(m) {
  if (m.id === undefined) return undefined;
  const ok = (result) => ({ jsonrpc: '2.0', id: m.id, result });
  switch (m.method) {
    case 'initialize':
      return ok({
        protocolVersion: VERSION,
        capabilities: { tools: {} },
        serverInfo: { name: 'bench-mcp-echo', version: '1.0.0' },
      });
    case 'tools/list':
      return ok({ tools: [ECHO_TOOL] });
    case 'tools/call':
      if (m.params?.name === 'echo')
        return ok({ content: [{ type: 'text', text: `Echo: ${m.params.arguments?.message}` }] });
      return { jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'unknown tool' } };
    case 'ping':
      return ok({});
    default:
      return { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } };
  }
}

if (opts.transport === 'stdio') {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    const reply = answer(JSON.parse(line));
    if (reply) process.stdout.write(`${JSON.stringify(reply)}\n`);
  });
  lines.on('close', () => process.exit(0));
} else {
  const sessions = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const sid = req.headers['mcp-session-id'];
      if (req.method === 'DELETE') {
        sessions.delete(sid);
        res.writeHead(200).end();
        return;
      }
      let m;
      try {
        m = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
        return;
      }
      const headers = {};
      if (m.method === 'initialize') {
        const id = randomUUID();
        sessions.add(id);
        headers['mcp-session-id'] = id;
      } else if (!sessions.has(sid)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(
          '{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Session not found"}}',
        );
        return;
      }
      const reply = answer(m);
      if (!reply) {
        res.writeHead(202).end();
        return;
      }
      const text = JSON.stringify(reply);
      if (opts.answer === 'json') {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(text);
        res.writeHead(200, headers);
        res.end(text);
        return;
      }
      headers['content-type'] = 'text/event-stream';
      headers['cache-control'] = 'no-cache';
      res.writeHead(200, headers);
      res.write(`event: message\ndata: ${text}\n\n`);
      res.end();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const { port } = server.address();
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
