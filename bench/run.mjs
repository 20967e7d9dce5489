// `npm run bench`: what the gateway adds on top of the network, as ratios to a floor
// measured in the same run (issue 10). Every server runs in its own process; the
// load generator (autocannon) runs in its own process per measured window. Floor and
// subjects of a group take turns (A B A B), 3 repetitions, and each ratio is taken
// between windows of the same repetition. Traffic stays on 127.0.0.1; every loop is
// bounded. Writes bench/results/<timestamp>.json and prints a markdown table.
//
//   node bench/run.mjs [--duration S] [--connections N] [--reps N] [--no-pin] [--quick]
//                      [--only tools,http,sql,startup,envelope,redact] [--profile DIR]
//                      [--gateway PATH/TO/dist/cli/main.js]   (another build, for before/after)
//   node bench/run.mjs --report bench/results/<file>.json     (print a stored result again)
import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { createBenchSchema } from './lib/bench-schema.mjs';
import { loadWindow, verifyAnswer } from './lib/load-window.mjs';
import { JSON_HEADERS, legacyRequest, modernRequest } from './lib/mcp-requests.mjs';
import {
  canPin,
  freePort,
  launch as launchProcess,
  rssMb,
  sleep,
  stop,
  stopAll,
  urlOf,
  waitAnswer,
} from './lib/processes.mjs';
import { f0, f1, f2, range, stats } from './lib/stats.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const BENCH = join(ROOT, 'bench');
let MAIN = join(ROOT, 'dist', 'cli', 'main.js');
const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '4' },
    connections: { type: 'string', default: '16' },
    reps: { type: 'string', default: '3' },
    'no-pin': { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    profile: { type: 'string' },
    gateway: { type: 'string' },
    report: { type: 'string' },
  },
});
if (opts.gateway) MAIN = resolvePath(opts.gateway);
const DURATION = opts.quick ? 1 : Number(opts.duration);
const CONNECTIONS = Number(opts.connections);
const REPS = opts.quick ? 1 : Number(opts.reps);
const WARMUP_S = opts.quick ? 1 : 2;
const ONLY = new Set((opts.only ?? 'tools,http,sql,startup,envelope,redact').split(','));
const PG_BASE = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PIN = !opts['no-pin'] && canPin;
/** The server under test gets CPU 0, the load generator CPU 1 (when pinning). */
const SERVER_CPU = '0';
const LOAD_CPU = '1';
const started = performance.now();
/** Hard bound on the whole run. */
const DEADLINE_MS = 5 * 60_000;

const launch = (args, options = {}) => launchProcess(args, { cwd: ROOT, pin: PIN, ...options });

function log(msg) {
  process.stderr.write(
    `[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(3)}s] ${msg}\n`,
  );
}

/** A gateway from the compiled build, on a port picked here (its listening line is info-level). */
async function startGateway(spec, { env = {}, extraArgs = [], profileDir } = {}) {
  const port = await freePort();
  const node = profileDir ? ['node', '--cpu-prof', `--cpu-prof-dir=${profileDir}`] : ['node'];
  const t0 = performance.now();
  const child = launch(
    [
      ...node,
      MAIN,
      'serve',
      spec,
      '--http',
      `127.0.0.1:${port}`,
      '--log-level',
      'warn',
      '--no-watch',
      ...extraArgs,
    ],
    { env, cpu: SERVER_CPU },
  );
  const url = `http://127.0.0.1:${port}`;
  const readyMs = await waitAnswer({ url: `${url}/readyz` }, t0, child);
  return { child, url, readyMs };
}

async function startScript(file, env, what) {
  const child = launch(['node', join(BENCH, 'servers', file)], { env, cpu: SERVER_CPU });
  return { child, url: await urlOf(child, what) };
}

// ---------------------------------------------------------------- measurements

/** One window of load in its own autocannon process; server CPU per request beside it. */
function load(target, duration, serverPid) {
  return loadWindow(target.request, {
    connections: CONNECTIONS,
    duration,
    serverPid,
    cpu: LOAD_CPU,
    what: target.name,
  });
}

/** Checks one answer of `target` before it is measured: right status, right content. */
function verify(target) {
  return verifyAnswer(target.request, target.expect, target.name);
}

/**
 * A group: the floor and its subjects take turns, REPS times; per repetition each
 * subject's rps is divided by the floor's rps of the same repetition.
 */
async function runGroup(name, floor, subjects) {
  const all = [floor, ...subjects];
  for (const t of all) await verify(t);
  for (const t of all) await load(t, WARMUP_S, undefined);
  const runs = new Map(all.map((t) => [t.name, []]));
  for (let rep = 0; rep < REPS; rep++) {
    for (const t of all) {
      if (performance.now() - started > DEADLINE_MS)
        throw new Error('bench exceeded its 5-minute bound');
      const r = await load(t, DURATION, t.pid);
      runs.get(t.name).push(r);
      log(
        `${name} rep ${rep + 1}: ${t.name} ${r.rps.toFixed(0)} rps, p50 ${r.p50} ms, p99 ${r.p99} ms`,
      );
    }
  }
  const floorRuns = runs.get(floor.name);
  return all.map((t) => {
    const rs = runs.get(t.name);
    return {
      name: t.name,
      role: t === floor ? 'floor' : 'subject',
      ...(t.target !== undefined && { target: t.target }),
      ...(t.reference && { reference: t.reference }),
      rps: stats(rs.map((r) => r.rps)),
      // Closed loop: the mean latency is connections ÷ throughput (Little's law), which
      // is exact where autocannon's histogram only has whole milliseconds.
      meanMs: stats(rs.map((r) => (CONNECTIONS / r.rps) * 1000)),
      p50Ms: stats(rs.map((r) => r.p50)),
      p99Ms: stats(rs.map((r) => r.p99)),
      cpuUsPerReq: stats(rs.map((r) => r.cpuUsPerReq)),
      ratio: t === floor ? undefined : stats(rs.map((r, i) => r.rps / floorRuns[i].rps)),
      cpuRatio:
        t === floor ? undefined : stats(rs.map((r, i) => floorRuns[i].cpuUsPerReq / r.cpuUsPerReq)),
      runs: rs,
    };
  });
}

// ---------------------------------------------------------------- sections

async function ensureBuild() {
  if (opts.gateway) return false;
  const newest = (dir) =>
    readdirSync(dir, { withFileTypes: true }).reduce((m, e) => {
      const p = join(dir, e.name);
      return Math.max(m, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
    }, 0);
  let built = 0;
  try {
    built = statSync(MAIN).mtimeMs;
  } catch {
    // not built
  }
  if (built > newest(join(ROOT, 'src'))) return false;
  log('building dist/ (npm run build)');
  // Build output goes to stderr: stdout is the report.
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
  if (r.status !== 0) throw new Error('npm run build failed');
  return true;
}

async function toolsListSection(work) {
  const spec = join(ROOT, 'specs', 'github-issues.mcp.kdl');
  const gw = await startGateway(spec, { env: { GITHUB_TOKEN: 'bench-token' } });
  try {
    const modern = modernRequest(gw.url, 'tools/list');
    const legacy = legacyRequest(gw.url, 'tools/list');
    const modernBody = await verify({
      name: 'gateway modern',
      request: modern,
      expect: /"tools":\[/,
    });
    const legacyBody = await verify({
      name: 'gateway legacy',
      request: legacy,
      expect: /"tools":\[/,
    });
    const bodyFile = join(work, 'tools-list.json');
    writeFileSync(bodyFile, modernBody);
    const toolsFile = join(work, 'tools.json');
    writeFileSync(toolsFile, JSON.stringify(JSON.parse(legacyBody).result.tools));
    const floor = await startScript(
      'floor-tools-list.mjs',
      { BODY_FILE: bodyFile },
      'floor-tools-list',
    );
    const sdk = await startScript('sdk-reference.mjs', { TOOLS_FILE: toolsFile }, 'sdk-reference');
    try {
      const results = await runGroup(
        'tools/list',
        {
          name: 'floor: bare fastify, precomputed bytes',
          pid: floor.child.pid,
          request: modernRequest(floor.url, 'tools/list'),
          expect: /"tools":\[/,
        },
        [
          {
            name: 'mcp-beaver tools/list (modern)',
            pid: gw.child.pid,
            request: modern,
            expect: /"tools":\[/,
            target: 0.85,
          },
          {
            name: 'mcp-beaver tools/list (legacy)',
            pid: gw.child.pid,
            request: legacy,
            expect: /"tools":\[/,
            target: 0.85,
          },
          {
            name: 'official SDK v2 createMcpHandler tools/list (modern)',
            pid: sdk.child.pid,
            request: modernRequest(sdk.url, 'tools/list'),
            expect: /"tools":\[/,
            reference: true,
          },
        ],
      );
      // Our ratio to the SDK reference, per repetition.
      const sdkRow = results[3];
      for (const row of results.slice(1, 3)) {
        row.ratioToSdk = stats(row.runs.map((r, i) => r.rps / sdkRow.runs[i].rps));
      }
      return {
        spec: 'specs/github-issues.mcp.kdl',
        tools: JSON.parse(legacyBody).result.tools.length,
        bodyBytes: { modern: Buffer.byteLength(modernBody), legacy: Buffer.byteLength(legacyBody) },
        results,
        rssAfterLoadMb: rssMb(gw.child.pid),
      };
    } finally {
      await Promise.all([stop(floor.child), stop(sdk.child)]);
    }
  } finally {
    await stop(gw.child);
  }
}

function callSpec(work) {
  const file = join(work, 'bench-call.mcp.kdl');
  writeFileSync(
    file,
    `wrap "bench" version="1.0.0" {
    describe "Grants of the gateway benchmark."
}
base-url "http://127.0.0.1:9"
database env="DATABASE_URL" pool=10
can get item {
    describe "One item by id."
    path "/items/{id}" {
        id "integer" min=1
    }
}
can query item-row {
    describe "One item row by id."
    sql "SELECT id, name, price_cents FROM bench_items WHERE id = $1"
    params {
        id "integer" required=#true min=1
    }
}
`,
  );
  return file;
}

async function httpSection(work, db) {
  const upstream = await startScript('upstream.mjs', {}, 'upstream');
  const floor = await startScript(
    'floor-proxy.mjs',
    { UPSTREAM_URL: upstream.url, UPSTREAM_PATH: '/items/42' },
    'floor-proxy',
  );
  const gw = await startGateway(callSpec(work), {
    env: { DATABASE_URL: db.url },
    extraArgs: ['--base-url', upstream.url],
    ...(opts.profile && { profileDir: join(opts.profile, 'http') }),
  });
  const rssIdleMb = rssMb(gw.child.pid);
  try {
    const args = JSON.stringify({ id: 42 });
    const results = await runGroup(
      'http',
      {
        name: 'floor: bare fastify + undici proxy',
        pid: floor.child.pid,
        request: { url: `${floor.url}/call`, headers: JSON_HEADERS, body: args },
        expect: /widget/,
      },
      [
        {
          name: 'mcp-beaver tools/call (modern)',
          pid: gw.child.pid,
          request: modernRequest(
            gw.url,
            'tools/call',
            { name: 'get_item', arguments: { id: 42 } },
            'get_item',
          ),
          expect: /"isError":false/,
          target: 0.9,
        },
        {
          name: 'mcp-beaver POST /api/get_item',
          pid: gw.child.pid,
          request: { url: `${gw.url}/api/get_item`, headers: JSON_HEADERS, body: args },
          expect: /"coverage"/,
          target: 0.9,
        },
        {
          name: 'upstream direct (node:http)',
          pid: upstream.child.pid,
          request: { url: `${upstream.url}/items/42`, method: 'GET' },
          expect: /widget/,
          reference: true,
        },
      ],
    );
    return { results, rssIdleMb, rssAfterLoadMb: rssMb(gw.child.pid) };
  } finally {
    await Promise.all([stop(gw.child), stop(floor.child), stop(upstream.child)]);
  }
}

const SQL = 'SELECT id, name, price_cents FROM bench_items WHERE id = $1';

async function sqlSection(work, db) {
  const floor = await startScript(
    'floor-sql.mjs',
    { DATABASE_URL: db.url, POOL: '10', SQL },
    'floor-sql',
  );
  const gw = await startGateway(callSpec(work), {
    env: { DATABASE_URL: db.url },
    ...(opts.profile && { profileDir: join(opts.profile, 'sql') }),
  });
  try {
    const args = JSON.stringify({ id: 42 });
    const results = await runGroup(
      'sql',
      {
        name: 'floor: bare fastify + pg prepared statement',
        pid: floor.child.pid,
        request: { url: `${floor.url}/call`, headers: JSON_HEADERS, body: args },
        expect: /item-42/,
      },
      [
        {
          name: 'mcp-beaver tools/call (modern)',
          pid: gw.child.pid,
          request: modernRequest(
            gw.url,
            'tools/call',
            { name: 'query_item_row', arguments: { id: 42 } },
            'query_item_row',
          ),
          expect: /"isError":false/,
          target: 0.8,
        },
        {
          name: 'mcp-beaver POST /api/query_item_row',
          pid: gw.child.pid,
          request: { url: `${gw.url}/api/query_item_row`, headers: JSON_HEADERS, body: args },
          expect: /item-42/,
          target: 0.8,
        },
      ],
    );
    return { results, rssAfterLoadMb: rssMb(gw.child.pid) };
  } finally {
    await Promise.all([stop(gw.child), stop(floor.child)]);
  }
}

async function startupSection(work, db) {
  const { tsImport } = await import('tsx/esm/api');
  const { generateSpec } = await tsImport('./generate-spec.ts', import.meta.url);
  const out = [];
  // The floor: node + fastify from process start to its first answer.
  const floorMs = [];
  const bodyFile = join(work, 'empty.json');
  writeFileSync(bodyFile, '{}');
  for (let i = 0; i < REPS; i++) {
    const t0 = performance.now();
    const s = await startScript('floor-tools-list.mjs', { BODY_FILE: bodyFile }, 'floor start');
    floorMs.push(performance.now() - t0);
    await stop(s.child);
  }
  for (const n of [50, 500, 2000]) {
    const spec = join(work, `generated-${n}.mcp.kdl`);
    writeFileSync(spec, generateSpec(n));
    const ready = [];
    const rss = [];
    for (let i = 0; i < REPS; i++) {
      const gw = await startGateway(spec, {
        env: { DATABASE_URL: db.url, BENCH_TOKEN: 'bench-token' },
      });
      ready.push(gw.readyMs);
      await sleep(1000);
      rss.push(rssMb(gw.child.pid));
      await stop(gw.child);
    }
    const row = { grants: n, readyMs: stats(ready), rssIdleMb: stats(rss) };
    out.push(row);
    log(
      `start-up ${n} grants: ready ${row.readyMs.median.toFixed(0)} ms, idle RSS ${row.rssIdleMb.median.toFixed(1)} MB`,
    );
  }
  return { floorFastifyFirstAnswerMs: stats(floorMs), specs: out };
}

async function envelopeSection() {
  const dist = dirname(dirname(MAIN));
  const child = launch(['node', join(BENCH, 'envelope.mjs'), opts.quick ? '150' : '700', dist], {
    cpu: SERVER_CPU,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`envelope bench failed: ${child.stderrTail()}`);
  return JSON.parse(out.trim());
}

/** Bytes of issue 17's 2,000-row result (bench/envelope-size.mjs): one build, a few ms. */
async function envelopeSizeSection() {
  const dist = dirname(dirname(MAIN));
  const child = launch(['node', join(BENCH, 'envelope-size.mjs'), dist], { cpu: SERVER_CPU });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`envelope size bench failed: ${child.stderrTail()}`);
  return JSON.parse(out.trim());
}

/** Redaction of results (bench/redact.mjs), in-process against the compiled build. */
async function redactSection() {
  const dist = dirname(dirname(MAIN));
  const child = launch(['node', join(BENCH, 'redact.mjs'), opts.quick ? '150' : '700', dist], {
    cpu: SERVER_CPU,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const code = await new Promise((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`redact bench failed: ${child.stderrTail()}`);
  return JSON.parse(out.trim());
}

// ---------------------------------------------------------------- database

function setUpDatabase() {
  return createBenchSchema(PG_BASE, 'mcpb_bench');
}

// ---------------------------------------------------------------- report

/** "met" or "**missed**" for a median against a target: at least `min`, or under `max`. */
function verdict(s, { min, max }) {
  if (s === undefined) return '';
  if (min !== undefined) return s.median >= min ? `met (≥ ${min})` : `**missed** (target ≥ ${min})`;
  return s.median < max ? `met (< ${max})` : `**missed** (target < ${max})`;
}

function groupTable(title, section, extra = () => '') {
  const lines = [
    `### ${title}`,
    '',
    '| server | rps | mean ms | p50 ms | p99 ms | server CPU µs/req | rps ratio to floor | CPU/req ratio (floor ÷ this) | target |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of section.results) {
    lines.push(
      `| ${r.name} | ${range(r.rps, f0)} | ${range(r.meanMs, f2)} | ${range(r.p50Ms, f0)} | ${range(r.p99Ms, f0)} | ${range(r.cpuUsPerReq, f0)} | ${r.ratio ? range(r.ratio, f2) : 'floor'} | ${r.cpuRatio ? range(r.cpuRatio, f2) : ''} | ${r.target !== undefined ? verdict(r.ratio, { min: r.target }) : r.reference ? 'reference' : ''} |`,
    );
  }
  const x = extra();
  return [...lines, ...(x ? ['', x] : []), ''].join('\n');
}

function report(result) {
  const out = [
    `## mcp-beaver bench — ${result.date}`,
    '',
    `node ${result.node}, ${result.cpus} CPUs (${result.cpuModel}), load generator ${result.loadGenerator}, ` +
      `${result.connections} connections, ${result.duration} s windows, ${result.reps} repetitions (floor and subjects in turn), ` +
      `${result.pinned ? 'servers pinned to CPU 0 and the load generator to CPU 1' : 'no CPU pinning'}; ` +
      `figures are median (min–max) over the repetitions; ratios are taken per repetition.`,
    '',
  ];
  const s = result.sections;
  if (s.tools) {
    out.push(
      groupTable(
        `1–2. tools/list (${s.tools.spec}, ${s.tools.tools} tools, ${s.tools.bodyBytes.modern} bytes modern)`,
        s.tools,
        () =>
          s.tools.results
            .filter((r) => r.ratioToSdk)
            .map((r) => `${r.name}: ${range(r.ratioToSdk, f1)}× the official SDK v2 reference.`)
            .join(' ') + ` Gateway RSS after load: ${f1(s.tools.rssAfterLoadMb)} MB.`,
      ),
    );
  }
  if (s.http)
    out.push(
      groupTable(
        '3. HTTP grant call (GET upstream, small JSON)',
        s.http,
        () =>
          `Gateway RSS idle ${f1(s.http.rssIdleMb)} MB, after load ${f1(s.http.rssAfterLoadMb)} MB.`,
      ),
    );
  if (s.sql)
    out.push(
      groupTable(
        '4. sql grant call (one row by primary key)',
        s.sql,
        () => `Gateway RSS after load ${f1(s.sql.rssAfterLoadMb)} MB.`,
      ),
    );
  if (s.startup) {
    out.push(
      '### 5. Start-up: process start to /readyz 200 (generated specs)',
      '',
      '| grants | ready ms | idle RSS MB | target |',
      '| --- | --- | --- | --- |',
      ...s.startup.specs.map(
        (r) =>
          `| ${r.grants} | ${range(r.readyMs, f0)} | ${range(r.rssIdleMb, f1)} | ${r.grants === 500 ? `ready ${verdict(r.readyMs, { max: 300 })}; ` : ''}RSS ${verdict(r.rssIdleMb, { max: 80 })} |`,
      ),
      '',
      `Floor: node + bare fastify, process start to first answer: ${range(s.startup.floorFastifyFirstAnswerMs, f0)} ms.`,
      '',
    );
  }
  if (s.envelope) {
    out.push(
      '### 6. Envelope (in-process, compiled build)',
      '',
      '| result | coverage only (fits) ns/byte | truncation to 256 KiB ns/byte | JSON.parse of the same bytes ns/byte |',
      '| --- | --- | --- | --- |',
      ...s.envelope.map(
        (r) =>
          `| ${r.size} | ${f2(r.coverageNsPerByte)} | ${r.truncationNsPerByte === null ? 'n/a (fits)' : f2(r.truncationNsPerByte)} | ${f2(r.jsonParseNsPerByte)} |`,
      ),
      '',
    );
  }
  if (s.envelopeSize) {
    const z = s.envelopeSize;
    out.push(
      `${z.rows} rows with a \`tags\` array each (${z.resultBytes} B of JSON): coverage of the whole result ${z.coverageBytes} B in ${z.coverageEntries} entries (${z.itemsOmitted} arrays omitted); ` +
        `whole envelope at max-bytes=${z.cap}: ${z.cappedEnvelopeBytes} B (coverage ${z.cappedCoverageBytes} B, ${z.cappedRowsKept} rows kept)` +
        (z.picked
          ? `; with \`pick ${z.picked.paths}\`: ${z.picked.bytes} B of ${z.picked.upstreamBytes} B, ${z.picked.cappedRowsKept} rows kept.`
          : '.'),
      '',
    );
  }
  if (s.redact) {
    out.push(
      '### 7. Redaction (in-process, compiled build)',
      '',
      'One scan of the result JSON for every spelling of every secret (no secret: the hot path), and scan + replace when spellings of the token occur every ~50 rows; ratios to an `indexOf` of a missing character over the same text, in the same run.',
      '',
      '| result | secrets | no secret ns/byte (MB/s) | × indexOf | with secrets ns/byte | × indexOf | JSON.parse ns/byte |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...s.redact.map(
        (r) =>
          `| ${r.size} | ${r.secrets} | ${f2(r.noSecretNsPerByte)} (${(1e3 / r.noSecretNsPerByte).toFixed(0)}) | ${(r.noSecretNsPerByte / r.indexOfNsPerByte).toFixed(1)} | ${f2(r.withSecretsNsPerByte)} | ${(r.withSecretsNsPerByte / r.indexOfNsPerByte).toFixed(1)} | ${f2(r.jsonParseNsPerByte)} |`,
      ),
      '',
    );
  }
  out.push(`Total bench time ${(result.elapsedMs / 1000).toFixed(0)} s.`);
  return out.join('\n');
}

// ---------------------------------------------------------------- main

if (opts.report) {
  const stored = JSON.parse(readFileSync(opts.report, 'utf8'));
  // Results written before the mean column existed: the same Little's-law figure.
  for (const section of Object.values(stored.sections))
    for (const r of section.results ?? [])
      r.meanMs ??= stats(r.runs.map((x) => (stored.connections / x.rps) * 1000));
  process.stdout.write(`${report(stored)}\n`);
  process.exit(0);
}

const work = mkdtempSync(join(tmpdir(), 'mcpb-bench-'));
let db;
const result = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: (await import('node:os')).cpus().length,
  cpuModel: (await import('node:os')).cpus()[0]?.model ?? 'unknown',
  loadGenerator: `autocannon ${JSON.parse(readFileSync(join(ROOT, 'node_modules', 'autocannon', 'package.json'), 'utf8')).version} (own process per window, pipelining 1)`,
  connections: CONNECTIONS,
  duration: DURATION,
  reps: REPS,
  pinned: PIN,
  gatewayCommand: `node ${opts.gateway ?? 'dist/cli/main.js'} serve <spec> --http 127.0.0.1:<port> --log-level warn --no-watch`,
  sections: {},
};
let failed = false;
try {
  result.rebuilt = await ensureBuild();
  const needsDb = ONLY.has('http') || ONLY.has('sql') || ONLY.has('startup');
  if (needsDb) {
    try {
      db = await setUpDatabase();
    } catch (err) {
      log(`no Postgres at ${PG_BASE} (${err.message}): sql and start-up sections skipped`);
      ONLY.delete('sql');
      ONLY.delete('startup');
      db = { url: 'postgres://127.0.0.1:1/none', drop: async () => {} };
    }
  }
  if (ONLY.has('tools')) {
    log('tools/list');
    result.sections.tools = await toolsListSection(work);
  }
  if (ONLY.has('http')) {
    log('HTTP grant call');
    result.sections.http = await httpSection(work, db);
  }
  if (ONLY.has('sql')) {
    log('sql grant call');
    result.sections.sql = await sqlSection(work, db);
  }
  if (ONLY.has('startup')) {
    log('start-up');
    result.sections.startup = await startupSection(work, db);
  }
  if (ONLY.has('envelope')) {
    log('envelope');
    result.sections.envelope = await envelopeSection();
    result.sections.envelopeSize = await envelopeSizeSection();
  }
  if (ONLY.has('redact')) {
    log('redaction');
    result.sections.redact = await redactSection();
  }
} catch (err) {
  failed = true;
  process.stderr.write(`bench failed: ${err.stack ?? err}\n`);
} finally {
  stopAll();
  await db?.drop().catch((e) => log(`could not drop the bench schema: ${e.message}`));
  rmSync(work, { recursive: true, force: true });
}
result.elapsedMs = performance.now() - started;
if (!failed) {
  const dir = join(BENCH, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${result.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${report(result)}\n\nJSON: ${file.slice(ROOT.length + 1)}\n`);
}
process.exitCode = failed ? 1 : 0;
