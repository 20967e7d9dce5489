// `npm run bench:peers`: mcp-beaver side by side with the products a platform team would
// pick instead (issue 19): Google MCP Toolbox (Go binary), DBHub, and a hand-written
// server on the official SDK v2. All serve the same two tools (a parameterized SELECT
// returning 10 rows; an HTTP GET of a 1 KB JSON upstream) from one description
// (peers/workload.mjs), on the same Postgres schema and upstream.
//
// Each workload (tools/list, sql call, HTTP call) × era (2026-07-28, 2025-11-25) ×
// concurrency is one group: its subjects take turns (A B C D, REPS rounds), and every
// ratio is mcp-beaver ÷ peer within the same round. Servers are pinned to CPU 0 and the
// load generator to CPU 1; CPU per request is read from /proc. Cold start is process
// start to the first tools/list answer. Traffic stays on 127.0.0.1; every loop is bounded.
//
//   node bench/peers.mjs [--duration S] [--reps N] [--connections 16,64] [--eras modern,legacy]
//                        [--only tools,sql,http,startup,rss] [--quick] [--no-pin]
//                        [--subjects NAME,…] [--baseline DIST]
//
// --subjects keeps only the subjects whose names start with one of the given prefixes
// (mcp-beaver and its --baseline always stay); --baseline DIST adds another build of mcp-beaver
// (node DIST/cli/main.js, e.g. main's) as a peer, so a change is measured against the
// build before it in the same rounds.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createBenchSchema } from './lib/bench-schema.mjs';
import { loadWindow, verifyAnswer } from './lib/load-window.mjs';
import { eraRequest, legacyRequest } from './lib/mcp-requests.mjs';
import { canPin, launch, stop, stopAll, urlOf, waitAnswer } from './lib/processes.mjs';
import { rssMb } from './lib/proc.mjs';
import { sleep } from './lib/sleep.mjs';
import { f0, f1, f2, range, stats } from './lib/stats.mjs';
import { ensureContainerCommand, ensurePackage, ensurePeers } from './peers/install.mjs';
import { subjects as allSubjects } from './peers/subjects.mjs';
import { HTTP_TOOL, SQL_TOOL } from './peers/workload.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '4' },
    reps: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16,64' },
    eras: { type: 'string', default: 'modern,legacy' },
    only: { type: 'string', default: 'tools,sql,http,startup,rss' },
    quick: { type: 'boolean', default: false },
    'no-pin': { type: 'boolean', default: false },
    subjects: { type: 'string' },
    baseline: { type: 'string' },
  },
});
const DURATION = opts.quick ? 2 : Number(opts.duration);
const REPS = opts.quick ? 1 : Number(opts.reps);
const WARMUP_S = opts.quick ? 1 : 2;
const CONNECTIONS = opts.connections.split(',').map(Number);
const ERAS = opts.eras.split(',');
const ONLY = new Set(opts.only.split(','));
const PIN = !opts['no-pin'] && canPin;
const SERVER_CPU = PIN ? '0' : undefined;
const LOAD_CPU = PIN ? '1' : undefined;
const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** Hard bound on the whole run. */
const DEADLINE_MS = 30 * 60_000;
const started = performance.now();
const MAIN = join(ROOT, 'dist', 'cli', 'main.js');

function log(msg) {
  const s = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[peers ${s}s] ${msg}\n`);
}

const WORKLOADS = {
  tools: { title: 'tools/list', method: 'tools/list', expect: /"tools":\[/ },
  sql: {
    title: 'SQL call (10 rows)',
    method: 'tools/call',
    tool: SQL_TOOL,
    expect: /item-42/,
  },
  http: { title: 'HTTP call (1 KB JSON)', method: 'tools/call', tool: HTTP_TOOL, expect: /widget/ },
};

function requestOf(workload, era, url) {
  const w = WORKLOADS[workload];
  if (!w.tool) return eraRequest(era, url, w.method);
  const params = { name: w.tool.name, arguments: w.tool.args };
  return eraRequest(era, url, w.method, params, w.tool.name);
}

// ---------------------------------------------------------------- set-up

/** Builds dist/ when it is missing or older than src/ (a stale build would be measured). */
function ensureBuild() {
  const newest = (dir) =>
    readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
      const p = join(dir, e.name);
      return Math.max(m, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
    }, 0);
  if (existsSync(MAIN) && statSync(MAIN).mtimeMs > newest(join(ROOT, 'src'))) return;
  log('building dist/ (npm run build)');
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) throw new Error('npm run build failed');
}

function setUpDatabase() {
  return createBenchSchema(PG_BASE, 'mcpb_peers');
}

/** Starts a subject for `count` tools and waits for its first tools/list answer. */
async function startAndTime(subject, count) {
  const t0 = performance.now();
  const s = await subject.start(count);
  const readyMs = await waitAnswer(legacyRequest(s.url, 'tools/list'), t0, s.child, {
    expect: /"tools":\[/,
  });
  return { ...s, readyMs };
}

/** Which eras a running subject answers: each era's tools/list must succeed. */
async function erasOf(url) {
  const out = [];
  for (const era of ERAS) {
    try {
      await verifyAnswer(requestOf('tools', era, url), WORKLOADS.tools.expect, era);
      out.push(era);
    } catch {
      // this era is not served
    }
  }
  return out;
}

// ---------------------------------------------------------------- load groups

async function runGroup(workload, era, connections, running) {
  const members = running.filter((r) => r.subject.workloads.includes(workload));
  const present = members.filter((r) => r.eras.includes(era));
  const targets = [];
  for (const r of present) {
    const request = requestOf(workload, era, r.url);
    try {
      const body = await verifyAnswer(request, WORKLOADS[workload].expect, r.subject.name);
      targets.push({ r, request, bytes: Buffer.byteLength(body) });
    } catch (err) {
      log(`${r.subject.name}: ${workload} ${era} skipped: ${err.message.split('\n')[0]}`);
    }
  }
  const window = (t, duration) =>
    loadWindow(t.request, {
      connections,
      duration,
      serverPid: t.r.child.pid,
      cpu: LOAD_CPU,
      what: t.r.subject.name,
    });
  for (const t of targets) await window(t, WARMUP_S);
  const runs = new Map(targets.map((t) => [t, []]));
  for (let rep = 0; rep < REPS; rep++) {
    for (const t of targets) {
      if (performance.now() - started > DEADLINE_MS)
        throw new Error('exceeded the 30-minute bound');
      const w = await window(t, DURATION);
      runs.get(t).push(w);
      log(
        `${workload} ${era} c${connections} round ${rep + 1}: ${t.r.subject.name} ${w.rps.toFixed(0)} rps`,
      );
    }
  }
  const ours = targets.find((t) => t.r.subject.ours);
  return targets.map((t) => {
    const rs = runs.get(t);
    return {
      subject: t.r.subject.name,
      ours: Boolean(t.r.subject.ours),
      bytes: t.bytes,
      rps: stats(rs.map((w) => w.rps)),
      p99Ms: stats(rs.map((w) => w.p99)),
      cpuUsPerReq: stats(rs.map((w) => w.cpuUsPerReq)),
      // mcp-beaver ÷ this peer, per round.
      oursOverThis:
        ours && t !== ours ? stats(rs.map((w, i) => runs.get(ours)[i].rps / w.rps)) : undefined,
    };
  });
}

// ---------------------------------------------------------------- start-up

async function startupSection(list) {
  const rows = [];
  // The floor: node + bare fastify, process start to its first answer.
  const bodyFile = join(work, 'empty.json');
  writeFileSync(bodyFile, '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}');
  const floor = [];
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    const child = launch(['node', join(ROOT, 'bench', 'servers', 'floor-tools-list.mjs')], {
      env: { BODY_FILE: bodyFile },
      cpu: SERVER_CPU,
      cwd: ROOT,
    });
    const url = await urlOf(child, 'floor');
    await waitAnswer(legacyRequest(url, 'tools/list'), t0, child);
    floor.push(performance.now() - t0);
    await stop(child);
  }
  const bare = [];
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    spawnSync('node', ['-e', '0']);
    bare.push(performance.now() - t0);
  }
  for (const count of [2, 500]) {
    for (const subject of list) {
      if (count === 500 && !subject.ours && !subject.name.startsWith('Google')) continue;
      if (count === 500 && subject.startupOnly) continue;
      const ready = [];
      const rss = [];
      for (let i = 0; i < REPS; i++) {
        const s = await startAndTime(subject, count);
        ready.push(s.readyMs);
        if (count === 2) {
          await sleep(1000);
          rss.push(rssMb(s.child.pid));
        }
        await stop(s.child);
      }
      const row = {
        subject: subject.name,
        tools: count,
        readyMs: stats(ready),
        rssIdleMb: stats(rss),
      };
      rows.push(row);
      log(`cold start ${count} tools: ${subject.name} ${f0(row.readyMs.median)} ms`);
    }
  }
  return { floorFastifyMs: stats(floor), bareNodeMs: stats(bare), rows };
}

// ---------------------------------------------------------------- report

function report(result) {
  const out = [
    `## mcp-beaver vs peers — ${result.date}`,
    '',
    `node ${result.node}, ${result.cpus} CPUs (${result.cpuModel}); ${result.pinned ? 'servers pinned to CPU 0, load generator to CPU 1 (pinned before exec)' : 'no CPU pinning'}; ` +
      `autocannon in its own process per window, ${result.duration} s windows, ${result.reps} interleaved rounds; ` +
      'figures are median (min–max) over the rounds; "ours ÷ peer" is taken within each round.',
    '',
  ];
  for (const g of result.groups) {
    out.push(
      `### ${WORKLOADS[g.workload].title}, ${g.era === 'modern' ? '2026-07-28' : '2025-11-25'}, c${g.connections}`,
      '',
      '| subject | rps | p99 ms | server CPU µs/req | bytes/answer | mcp-beaver ÷ this |',
      '| --- | --- | --- | --- | --- | --- |',
      ...g.rows.map(
        (r) =>
          `| ${r.subject} | ${range(r.rps, f0)} | ${range(r.p99Ms, f0)} | ${range(r.cpuUsPerReq, f0)} | ${r.bytes} | ${r.ours ? '—' : range(r.oursOverThis, f2)} |`,
      ),
      '',
    );
  }
  if (result.startup) {
    const s = result.startup;
    out.push(
      '### Cold start: process start to the first tools/list answer',
      '',
      '| subject | tools | ms | idle RSS MB |',
      '| --- | --- | --- | --- |',
      ...s.rows.map(
        (r) =>
          `| ${r.subject} | ${r.tools} | ${range(r.readyMs, f0)} | ${range(r.rssIdleMb, f1)} |`,
      ),
      '',
      `Floors: \`node -e 0\` ${range(s.bareNodeMs, f0)} ms; node + bare fastify to its first answer ${range(s.floorFastifyMs, f0)} ms.`,
      '',
    );
  }
  out.push(`Total ${(result.elapsedMs / 1000).toFixed(0)} s.`);
  return out.join('\n');
}

// ---------------------------------------------------------------- main

const work = mkdtempSync(join(tmpdir(), 'mcpb-peers-'));
const result = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? 'unknown',
  duration: DURATION,
  reps: REPS,
  pinned: PIN,
  groups: [],
};
let db;
let upstream;
const running = [];
let failed = false;
try {
  ensureBuild();
  const peers = ensurePeers(join(ROOT, '.tools', 'peers'), log);
  db = await setUpDatabase();
  upstream = launch(['node', join(ROOT, 'bench', 'servers', 'upstream.mjs')], {
    env: { BODY_BYTES: '1024' },
    cpu: SERVER_CPU,
  });
  const upstreamUrl = await urlOf(upstream, 'upstream');
  const binary = join(ROOT, 'dist-bin', 'mcp-beaver');
  const keep = opts.subjects?.split(',');
  const list = allSubjects({
    baseline: opts.baseline,
    work,
    schema: db.schema,
    databaseUrl: `${PG_BASE}${PG_BASE.includes('?') ? '&' : '?'}sslmode=disable`,
    upstreamUrl,
    peers,
    main: MAIN,
    root: ROOT,
    binary: existsSync(binary) ? binary : undefined,
    npxDir: ONLY.has('startup')
      ? ensurePackage(join(ROOT, '.tools', 'peers', 'npx-mcp-beaver'), ROOT, log)
      : undefined,
    container: ONLY.has('startup')
      ? ensureContainerCommand(join(ROOT, '.tools', 'peers', 'container'), ROOT, MAIN, log)
      : undefined,
    serverCpu: SERVER_CPU,
  }).filter(
    (s) => s.name.startsWith('mcp-beaver') || !keep || keep.some((k) => s.name.startsWith(k)),
  );
  const loadWorkloads = ['tools', 'sql', 'http'].filter((w) => ONLY.has(w));
  if (loadWorkloads.length > 0) {
    for (const subject of list.filter((s) => !s.startupOnly)) {
      const s = await startAndTime(subject, 2);
      running.push({ subject, ...s, eras: await erasOf(s.url) });
      log(`${subject.name} up (${f0(s.readyMs)} ms), eras: ${running.at(-1).eras.join(', ')}`);
    }
    for (const workload of loadWorkloads)
      for (const era of ERAS)
        for (const connections of CONNECTIONS)
          result.groups.push({
            workload,
            era,
            connections,
            rows: await runGroup(workload, era, connections, running),
          });
    if (ONLY.has('rss'))
      result.rssAfterLoadMb = Object.fromEntries(
        running.map((r) => [r.subject.name, rssMb(r.child.pid)]),
      );
    await Promise.all(running.map((r) => stop(r.child)));
  }
  if (ONLY.has('startup')) {
    log('cold start');
    result.startup = await startupSection(list);
  }
} catch (err) {
  failed = true;
  process.stderr.write(`bench:peers failed: ${err.stack ?? err}\n`);
} finally {
  stopAll();
  await db?.drop().catch((e) => log(`could not drop the bench schema: ${e.message}`));
  rmSync(work, { recursive: true, force: true });
}
result.elapsedMs = performance.now() - started;
if (!failed) {
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `peers-${result.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${report(result)}\n\nJSON: ${file.slice(ROOT.length + 1)}\n`);
}
process.exitCode = failed ? 1 : 0;
