// The soak's traffic: `concurrency` callers, each on its own seeded random sequence,
// calling the soak spec's grants through both surfaces (POST /mcp in the 2025-11-25 era
// and POST /api) until the deadline. Every request carries its own id, which the
// upstream or the database echoes back, so each answer is matched to its request.
import { request } from 'undici';
import { rng } from './fault-upstream.mjs';

/** Outcome of one answer: 'ok' or the catalogue code; `echo` says the answer was for this request. */
function readRest(kind, id, status, text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return { outcome: `HTTP_${status}_NOT_JSON`, echo: false };
  }
  if (status === 200) {
    const result = body?.result;
    const got =
      kind === 'sql-write' ? result?.[0]?.tag : kind === 'sql' ? result?.[0]?.id : result?.id;
    return { outcome: 'ok', echo: got === id };
  }
  return { outcome: body?.error?.code ?? `HTTP_${status}`, echo: true };
}

function readMcp(kind, id, rpcId, status, text) {
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return { outcome: `HTTP_${status}_NOT_JSON`, echo: false };
  }
  const sameId = body?.id === rpcId;
  if (body?.error) return { outcome: `RPC_${body.error.code}`, echo: sameId };
  const r = body?.result;
  if (!r || typeof r.isError !== 'boolean') return { outcome: 'MALFORMED', echo: false };
  if (r.isError) {
    const code = /^([A-Z_]+):/.exec(r.content?.[0]?.text ?? '')?.[1] ?? 'TOOL_ERROR';
    return { outcome: code, echo: sameId };
  }
  const result = r.structuredContent?.result;
  const got =
    kind === 'sql-write' ? result?.[0]?.tag : kind === 'sql' ? result?.[0]?.id : result?.id;
  return { outcome: 'ok', echo: sameId && got === id };
}

const TOOLS = {
  'http-get': { tool: 'get_echo', args: (id) => ({ id, tag: 't' }) },
  'http-post': { tool: 'create_echo', args: (id, seq) => ({ id, n: seq, tags: ['a', 'b'] }) },
  sql: { tool: 'get_row', args: (id, seq) => ({ id, n: (seq % 100) + 1 }) },
  'sql-write': { tool: 'create_hit', args: (id) => ({ tag: id }) },
};

function pickKind(r, sqlShare) {
  if (r < sqlShare) return r < sqlShare * 0.8 ? 'sql' : 'sql-write';
  return (r - sqlShare) / (1 - sqlShare) < 0.5 ? 'http-get' : 'http-post';
}

/** One call through the surface `rec` names; its answer, outcome and timing land in `rec`. */
async function send(gw, agent, rec, tool, args) {
  try {
    let res;
    if (rec.surface === 'rest') {
      res = await request(`${gw.url}/api/${tool}`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', 'x-request-id': rec.id },
        body: JSON.stringify(args(rec.id, rec.n)),
      });
    } else {
      res = await request(`${gw.url}/mcp`, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          'x-request-id': rec.id,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: rec.n,
          method: 'tools/call',
          params: { name: tool, arguments: args(rec.id, rec.n) },
        }),
      });
    }
    const text = await res.body.text();
    rec.answers += 1;
    rec.status = res.statusCode;
    rec.sameRequestId = res.headers['x-request-id'] === rec.id;
    const read =
      rec.surface === 'rest'
        ? readRest(rec.kind, rec.id, res.statusCode, text)
        : readMcp(rec.kind, rec.id, rec.n, res.statusCode, text);
    rec.outcome = read.outcome;
    rec.echo = read.echo;
    if (rec.outcome === 'INTERNAL' || res.statusCode === 500) rec.body = text.slice(0, 300);
  } catch (err) {
    rec.transportError = `${err.code ?? ''} ${err.message}`.trim();
  } finally {
    rec.ms = performance.now() - rec.start;
    rec.end = Date.now();
  }
}

/** Drives cfg.concurrency workers until the deadline (or Ctrl-C); every request sent, by seq. */
export async function runLoad(cfg, gw, agent, t0) {
  const records = [];
  let deadline = t0 + cfg.durationMs;
  // Ctrl-C ends the load early; the checks and the clean-up still run.
  process.once('SIGINT', () => (deadline = Date.now()));
  let seq = 0;

  async function one(random) {
    const n = seq++;
    const id = `s${n}`;
    const kind = pickKind(random(), cfg.sqlShare);
    const surface = random() < cfg.mcpShare ? 'mcp' : 'rest';
    const { tool, args } = TOOLS[kind];
    const rec = { n, id, kind, surface, start: performance.now(), at: Date.now(), answers: 0 };
    records.push(rec);
    await send(gw, agent, rec, tool, args);
  }

  async function worker(w) {
    const random = rng(cfg.seed * 1000 + w);
    while (Date.now() < deadline) await one(random);
  }

  await Promise.all(Array.from({ length: cfg.concurrency }, (_, w) => worker(w)));
  return records;
}
