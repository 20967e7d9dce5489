// Reference: tools served by the official SDK v2 (`@modelcontextprotocol/server`)
// `createMcpHandler`, stateless, on plain node:http. The SDK builds a server per request
// (its factory), as documented; the schemas are wrapped once, outside the factory.
//
// Two modes:
// - TOOLS_FILE holds the gateway's own tools/list `tools` array; each tool is registered
//   with its JSON Schemas and answers a fixed result (`npm run bench`, tools/list).
// - PEER_TOOLS holds the peer benchmark's tools ({name, description, param, sql | path});
//   each does the real work, as a hand-written SDK server would: a named pg statement on
//   DATABASE_URL, or a GET of UPSTREAM_URL + path (`npm run bench:peers`).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';

function fixedTools(file) {
  const fixed = {
    coverage: { truncated: false, bytes: 2, over_budget: false, items: [] },
    result: {},
  };
  const answer = async () => ({
    content: [{ type: 'text', text: JSON.stringify(fixed) }],
    structuredContent: fixed,
  });
  return JSON.parse(readFileSync(file, 'utf8')).map((t) => ({
    name: t.name,
    config: {
      ...(t.title !== undefined && { title: t.title }),
      ...(t.description !== undefined && { description: t.description }),
      inputSchema: fromJsonSchema(t.inputSchema),
      ...(t.annotations !== undefined && { annotations: t.annotations }),
    },
    answer,
  }));
}

async function workingTools(defs) {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  pool.on('error', () => {});
  const upstream = process.env.UPSTREAM_URL;
  return defs.map((t) => {
    const inputSchema = fromJsonSchema({
      type: 'object',
      properties: { [t.param.name]: { type: 'integer', description: t.param.description } },
      required: [t.param.name],
    });
    const text = (s) => ({ content: [{ type: 'text', text: s }] });
    const answer = t.sql
      ? async (args) => {
          const { rows } = await pool.query({
            name: t.name,
            text: t.sql,
            values: [args[t.param.name]],
          });
          return text(JSON.stringify(rows));
        }
      : async (args) => {
          const path = t.path.replace(`{${t.param.name}}`, encodeURIComponent(args[t.param.name]));
          const res = await fetch(`${upstream}${path}`);
          return text(await res.text());
        };
    return { name: t.name, config: { description: t.description, inputSchema }, answer };
  });
}

const tools = process.env.PEER_TOOLS
  ? await workingTools(JSON.parse(process.env.PEER_TOOLS))
  : fixedTools(process.env.TOOLS_FILE);

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'sdk-reference', version: '1.0.0' });
  for (const t of tools) server.registerTool(t.name, t.config, t.answer);
  return server;
});

// A minimal node:http ⇄ fetch bridge (what an adapter such as toNodeHandler does).
const server = createServer(async (req, res) => {
  try {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (Array.isArray(v)) for (const x of v) headers.append(k, x);
      else if (v !== undefined) headers.set(k, v);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      ...(hasBody && { body: Buffer.concat(chunks) }),
    });
    const response = await handler.fetch(request);
    res.statusCode = response.status;
    response.headers.forEach((v, k) => res.setHeader(k, v));
    if (response.body) for await (const c of response.body) res.write(c);
    res.end();
  } catch (err) {
    res.statusCode = 500;
    res.end(String(err));
  }
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
