// Instructions per request of one or more builds (valgrind callgrind), for a change too
// small to see in CPU time on a busy shared machine: a count of instructions does not
// move with the machine's load. Each build serves the peer bench's spec under callgrind
// with instrumentation off; after a warm-up of WARMUP requests (so the JIT has settled)
// instrumentation is switched on for REQUESTS requests at 4 connections, then the count
// is dumped. User-space instructions only: the kernel's send and receive, the same for
// every build, are not in it. The builds take turns (A B A B …).
//
//   node bench/request-instructions.mjs --command "node /tmp/base/dist/cli/main.js" \
//     --command "node dist/cli/main.js" [--only tools,http,sql] [--reps 2]
//     [--warmup 3000] [--requests 1000]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { createBenchSchema } from './lib/bench-schema.mjs';
import { eraRequest, legacyRequest } from './lib/mcp-requests.mjs';
import { freePort, launch, stop, stopAll, urlOf, waitAnswer } from './lib/processes.mjs';
import { f0, range, stats } from './lib/stats.mjs';
import { HTTP_TOOL, SQL_TOOL, toKdl, toolsOf } from './peers/workload.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const { values: opts } = parseArgs({
  options: {
    command: { type: 'string', multiple: true, default: ['node dist/cli/main.js'] },
    only: { type: 'string', default: 'tools,http,sql' },
    era: { type: 'string', default: 'modern' },
    reps: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '3000' },
    requests: { type: 'string', default: '1000' },
  },
});
const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const WORKLOADS = {
  tools: { method: 'tools/list', expect: /"tools":\[/ },
  http: { method: 'tools/call', tool: HTTP_TOOL, expect: /widget/ },
  sql: { method: 'tools/call', tool: SQL_TOOL, expect: /item-42/ },
};
const log = (m) => process.stderr.write(`[request-instructions] ${m}\n`);

function requestOf(workload, url) {
  const w = WORKLOADS[workload];
  if (!w.tool) return eraRequest(opts.era, url, w.method);
  const params = { name: w.tool.name, arguments: w.tool.args };
  return eraRequest(opts.era, url, w.method, params, w.tool.name);
}

/** `count` requests over 4 connections, every answer checked. */
async function send(agent, req, expect, count) {
  const u = new URL(req.url);
  let left = count;
  const worker = async () => {
    while (left-- > 0) {
      const res = await request(u, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        dispatcher: agent,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200 || !expect.test(text))
        throw new Error(`unexpected answer ${res.statusCode} ${text.slice(0, 200)}`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

/** Total Ir of a callgrind dump. */
function instructionsOf(file) {
  const m = /^totals:\s*(\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!m) throw new Error(`no totals in ${file}`);
  return Number(m[1]);
}

const work = mkdtempSync(join(tmpdir(), 'mcpb-request-ir-'));
let db;
try {
  db = await createBenchSchema(PG_BASE, 'mcpb_reqir');
  const upstream = launch(['node', join(ROOT, 'bench', 'servers', 'upstream.mjs')], {
    env: { BODY_BYTES: '1024' },
  });
  const upstreamUrl = await urlOf(upstream, 'upstream');
  const spec = join(work, 'bench.mcp.kdl');
  writeFileSync(spec, toKdl(toolsOf(2), { schema: db.schema, upstreamUrl }));
  const databaseUrl = `${PG_BASE}${PG_BASE.includes('?') ? '&' : '?'}sslmode=disable`;
  const agent = new Agent({ connections: 4 });
  const rows = new Map();
  for (let rep = 0; rep < Number(opts.reps); rep++) {
    for (const [i, command] of opts.command.entries()) {
      for (const workload of opts.only.split(',')) {
        const port = await freePort();
        const out = join(work, `cg-${rep}-${i}-${workload}`);
        const child = launch(
          [
            'valgrind',
            '--tool=callgrind',
            '--instr-atstart=no',
            '--collect-atstart=yes',
            `--callgrind-out-file=${out}.%p`,
            ...command.split(' '),
            'serve',
            spec,
            '--http',
            `127.0.0.1:${port}`,
            '--log-level',
            'warn',
            '--no-watch',
          ],
          { env: { DATABASE_URL: databaseUrl }, cwd: ROOT, pin: false },
        );
        const url = `http://127.0.0.1:${port}`;
        await waitAnswer(legacyRequest(url, 'tools/list'), 0, child, {
          expect: /"tools":\[/,
          timeoutMs: 600_000,
        });
        const req = requestOf(workload, url);
        const { expect } = WORKLOADS[workload];
        await send(agent, req, expect, Number(opts.warmup));
        execFileSync('callgrind_control', ['-i', 'on', String(child.pid)]);
        await send(agent, req, expect, Number(opts.requests));
        execFileSync('callgrind_control', ['-i', 'off', String(child.pid)]);
        await stop(child);
        const dumps = readdirSync(work).filter((f) => f.startsWith(`cg-${rep}-${i}-${workload}.`));
        const ir = dumps.reduce((n, f) => n + instructionsOf(join(work, f)), 0);
        const perRequest = ir / Number(opts.requests);
        log(`${workload} ${command}: ${f0(perRequest)} instructions/request`);
        const key = `${workload}\t${command}`;
        rows.set(key, [...(rows.get(key) ?? []), perRequest]);
      }
    }
  }
  await agent.close();
  await stop(upstream);
  process.stdout.write(
    [
      '| workload | build | instructions/request |',
      '| --- | --- | --- |',
      ...[...rows].map(([k, v]) => {
        const [workload, command] = k.split('\t');
        return `| ${workload} | ${command} | ${range(stats(v), f0)} |`;
      }),
    ].join('\n') + '\n',
  );
} finally {
  stopAll();
  await db?.drop().catch(() => {});
  rmSync(work, { recursive: true, force: true });
}
