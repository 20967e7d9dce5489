// Section 10b of `npm run bench`: the first leg of a 2025-era confirmed call (issue 41)
// against a plain proxied call, in server CPU per request. One gateway serves both: a
// client that initialized once declaring form elicitation (its sealed session id on
// every request) calls `get_item` (proxied to the upstream: the floor) or `delete_item`
// (a `confirm` grant: the engine asks, the POST is answered as an SSE stream carrying
// elicitation/create, and the client drops the stream once the question arrived, so the
// server also pays the dropped question). The load is a closed loop of this process's
// own fetches (autocannon cannot read one event of a stream and hang up), the same loop
// for both; the figure is the server's /proc CPU time over the requests answered.
// Target: the first leg costs no more CPU than a proxied call (floor ÷ this ≥ 1).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { JSON_HEADERS, LEGACY } from '../lib/mcp-requests.mjs';
import { cpuMs } from '../lib/proc.mjs';
import { stop } from '../lib/processes.mjs';
import { f0, f2, range, stats } from '../lib/stats.mjs';
import { verdict } from './group.mjs';
import { markdownTable } from './markdown-table.mjs';

const KEY = 'bench-agent-key-0123456789';
const CONSENT_KEY = 'ce'.repeat(32);
// Below the 20 open questions one caller may hold: a dropped stream's question is let go
// when the server sees the close, a moment after the client hung up.
const CONNECTIONS = 8;

function writeSpec(work) {
  const file = join(work, 'bench-legacy-confirm.mcp.kdl');
  writeFileSync(
    file,
    `wrap "bench-legacy-confirm" version="1.0.0"
base-url "http://127.0.0.1:9"
access confirm-key-env="BENCH_CONFIRM_KEY" {
    api-key env="BENCH_KEY" scopes="items:write"
}
can get item {
    describe "One item by id."
    path "/items/{id}" {
        id "integer" min=1
    }
}
can delete item {
    describe "Delete one item."
    path "/items/{id}" {
        id "integer" min=1
    }
    confirm "Delete item {id}?"
}
`,
  );
  return file;
}

/** initialize declaring form elicitation: the headers every later request carries. */
async function session(url) {
  const headers = {
    ...JSON_HEADERS,
    authorization: `Bearer ${KEY}`,
    'mcp-protocol-version': LEGACY,
  };
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LEGACY,
        capabilities: { elicitation: { form: {} } },
        clientInfo: { name: 'mcp-beaver-bench', version: '1.0.0' },
      },
    }),
  });
  await res.text();
  const id = res.headers.get('mcp-session-id');
  if (!id) throw new Error(`initialize gave no Mcp-Session-Id (${res.status})`);
  return { ...headers, 'mcp-session-id': id };
}

const callBody = (name) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: { id: 42 } },
  });

/** A proxied call, read whole; throws unless it ran. */
async function proxied(url, headers) {
  const res = await fetch(`${url}/mcp`, { method: 'POST', headers, body: callBody('get_item') });
  const text = await res.text();
  if (!text.includes('"isError":false')) throw new Error(`proxied call: ${text.slice(0, 200)}`);
}

/** The first leg: the question's event read, then the stream dropped. */
async function firstLeg(url, headers) {
  const abort = new AbortController();
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers,
    body: callBody('delete_item'),
    signal: abort.signal,
  });
  if (res.headers.get('content-type') !== 'text/event-stream')
    throw new Error(`first leg: not a stream: ${(await res.text()).slice(0, 200)}`);
  const reader = res.body.getReader();
  let seen = '';
  while (!seen.includes('elicitation/create')) {
    const { value, done } = await reader.read();
    if (done) throw new Error('first leg: the stream ended before the question');
    seen += Buffer.from(value).toString();
  }
  abort.abort();
  await reader.cancel().catch(() => undefined);
}

/**
 * The whole call when the user dismisses the question: the stream read to the question,
 * the answer POSTed (`cancel`, 202), the CONFIRMATION_CANCELLED result read from the
 * stream; both connections stay open for the next call.
 */
async function cancelled(url, headers) {
  const res = await fetch(`${url}/mcp`, { method: 'POST', headers, body: callBody('delete_item') });
  const reader = res.body.getReader();
  let seen = '';
  let id;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += Buffer.from(value).toString();
    if (id === undefined) {
      const m = /"id":"([A-Za-z0-9_-]+)","method":"elicitation\/create"/.exec(seen);
      if (m) {
        id = m[1];
        const answered = await fetch(`${url}/mcp`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ jsonrpc: '2.0', id, result: { action: 'cancel' } }),
        });
        await answered.text();
        if (answered.status !== 202) throw new Error(`answer: ${answered.status}`);
      }
    }
  }
  if (!seen.includes('CONFIRMATION_CANCELLED')) throw new Error(`cancelled: ${seen.slice(0, 300)}`);
}

/** `CONNECTIONS` loops of `call` for `seconds`; requests answered and server CPU µs each. */
async function window(pid, seconds, call) {
  const cpu0 = cpuMs(pid);
  const until = performance.now() + seconds * 1000;
  let total = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        await call();
        total++;
      }
    }),
  );
  // The last dropped streams' closes reach the server a moment later: give it that.
  await new Promise((r) => setTimeout(r, 200));
  return { total, cpuUsPerReq: ((cpuMs(pid) - cpu0) * 1000) / total };
}

async function run(ctx, { work }) {
  const upstream = await ctx.startScript('upstream.mjs', {}, 'upstream');
  const gw = await ctx.startGateway(writeSpec(work), {
    env: { BENCH_KEY: KEY, BENCH_CONFIRM_KEY: CONSENT_KEY },
    extraArgs: ['--base-url', upstream.url],
  });
  try {
    const headers = await session(gw.url);
    const kinds = [
      ['proxied tools/call (2025 era, with the session id)', () => proxied(gw.url, headers)],
      ['confirm grant, first leg (SSE question, stream dropped)', () => firstLeg(gw.url, headers)],
      [
        'confirm grant, question then `cancel` answer POST (2 requests, per call)',
        () => cancelled(gw.url, headers),
      ],
    ];
    for (const [, call] of kinds) await window(gw.child.pid, ctx.warmupS, call);
    const runs = new Map(kinds.map(([name]) => [name, []]));
    for (let rep = 0; rep < ctx.reps; rep++)
      for (const [name, call] of kinds) {
        const r = await window(gw.child.pid, ctx.duration, call);
        runs.get(name).push(r);
        ctx.log(`legacy confirm rep ${rep + 1}: ${name} ${f0(r.cpuUsPerReq)} µs/req (${r.total})`);
      }
    const floor = runs.get(kinds[0][0]);
    return {
      connections: CONNECTIONS,
      results: kinds.map(([name], i) => {
        const rs = runs.get(name);
        return {
          name,
          requests: stats(rs.map((r) => r.total)),
          cpuUsPerReq: stats(rs.map((r) => r.cpuUsPerReq)),
          ...(i > 0 && {
            cpuRatio: stats(rs.map((r, j) => floor[j].cpuUsPerReq / r.cpuUsPerReq)),
          }),
        };
      }),
    };
  } finally {
    await Promise.all([stop(gw.child), stop(upstream.child)]);
  }
}

function report(s) {
  return [
    [
      '### 10b. Confirmation in the 2025 era: the first leg on its stream',
      '',
      ...markdownTable(
        [
          'request',
          'requests per window',
          'server CPU µs/req',
          'CPU/req ratio (floor ÷ this)',
          'target',
        ],
        s.results.map((r) => [
          r.name,
          range(r.requests, f0),
          range(r.cpuUsPerReq, f0),
          r.cpuRatio ? range(r.cpuRatio, f2) : 'floor',
          r.cpuRatio ? verdict(r.cpuRatio, { min: 1 }) : '',
        ]),
      ),
      '',
      `${s.connections} concurrent fetch loops of this process (the same loop for each); the first leg hangs up after the question's event, so each one also costs the server a new connection (and the reset of the old one) and a dropped question. The cancelled call is the whole round trip of a user who dismisses the question: two HTTP requests (the call's stream, the answer POST) and the engine's retry, on kept-alive connections.`,
      '',
    ].join('\n'),
  ];
}

export const legacyConfirmSection = {
  key: 'legacyConfirm',
  only: 'legacy-confirm',
  label: 'Confirmation in the 2025 era (first leg)',
  database: 'optional',
  run,
  report,
};
