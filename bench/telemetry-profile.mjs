// Where a traced request's extra CPU goes, in the gateway itself (issue 40): a gateway
// with telemetry off and one with every request traced (`serve --otlp` to a loopback
// collector), both of one build, each under `node --cpu-prof`, loaded in turns (off, on,
// on, off …) with section 3's HTTP grant call. Only the samples taken inside the load
// windows count (the profile's clock and process.hrtime are both CLOCK_MONOTONIC), so
// start-up and warm-up are left out; each function's self time is divided by the
// requests its gateway answered in those windows: µs a request, on − off, per function
// and per kind of work (the garbage collector, telemetry code, the rest).
//
//   node bench/telemetry-profile.mjs [--main dist/cli/main.js] [--route mcp|rest]
//        [--reps 4] [--duration 4] [--interval 100] [--top 30] [--out DIR]
//
// The sampler's interval (µs) is finer than node's default 1 ms, which at a few thousand
// requests a second leaves too few samples a window. Profiling costs CPU of its own, the
// same for both gateways; the figures are for telling parts apart, not for ratios.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createBenchSchema } from './lib/bench-schema.mjs';
import { loadWindow } from './lib/load-window.mjs';
import { launch, launchOnPort, stop, urlOf, waitAnswer } from './lib/processes.mjs';
import { sleep } from './lib/sleep.mjs';
import { callSpec, gatewayCalls } from './sections/call-spec.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const { values: opts } = parseArgs({
  options: {
    main: { type: 'string', default: join(ROOT, 'dist', 'cli', 'main.js') },
    /** Another build's traced gateway in the same turns (--gc only): before and after. */
    before: { type: 'string' },
    route: { type: 'string', default: 'mcp' },
    reps: { type: 'string', default: '4' },
    duration: { type: 'string', default: '4' },
    interval: { type: 'string', default: '100' },
    top: { type: 'string', default: '30' },
    /** No profiler: the garbage collector's pauses and the threads' CPU instead. */
    gc: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});
const out = opts.out ? resolve(opts.out) : mkdtempSync(join(tmpdir(), 'telemetry-profile-'));
const work = mkdtempSync(join(tmpdir(), 'telemetry-profile-spec-'));
const spec = callSpec(work);
const db = await createBenchSchema(
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  'mcpb_tprof',
);
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

const upstream = launch(['node', join(ROOT, 'bench', 'servers', 'upstream.mjs')], { cpu: '1' });
const upstreamUrl = await urlOf(upstream, 'upstream');
const sink = launch(['node', join(ROOT, 'bench', 'servers', 'otlp-sink.mjs')], { cpu: '1' });
const collectorUrl = await urlOf(sink, 'collector');

async function gateway(key, otlp, main = opts.main) {
  const profiler = opts.gc
    ? []
    : ['--cpu-prof', `--cpu-prof-interval=${opts.interval}`, `--cpu-prof-dir=${join(out, key)}`];
  const args = [
    'node',
    ...profiler,
    resolve(main),
    'serve',
    spec,
    '--log-level',
    'warn',
    '--no-watch',
    '--base-url',
    upstreamUrl,
    ...(otlp ? ['--otlp', collectorUrl] : []),
  ];
  const env = {
    OTEL_EXPORTER_OTLP_ENDPOINT: '',
    OTEL_TRACES_SAMPLER: '',
    DATABASE_URL: db.url,
    ...(opts.gc && {
      NODE_OPTIONS: `--import ${pathToFileURL(join(ROOT, 'bench', 'lib', 'gc-on-signal.mjs')).href}`,
      GC_STATS_FILE: join(out, `${key}.gc.jsonl`),
    }),
  };
  const { child, url, startedAt } = await launchOnPort(args, { env, cpu: '0', cwd: ROOT });
  await waitAnswer({ url: `${url}/readyz` }, startedAt, child);
  return { key, child, url, windows: [], requests: 0, cpuUs: 0, gcReadings: 0 };
}

const gws = [await gateway('off', false), await gateway('on', true)];
if (opts.before) gws.push(await gateway('before-on', true, opts.before));
const route = opts.route === 'rest' ? 1 : 0;
const requestOf = (gw) => gatewayCalls(gw, 'get_item', { restExpect: /"coverage"/ })[route];
/** One line of GC_STATS_FILE: the gateway writes it on SIGUSR2. */
async function reading(gw) {
  const file = join(out, `${gw.key}.gc.jsonl`);
  const lines = () => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').length : 0);
  process.kill(gw.child.pid, 'SIGUSR2');
  for (let i = 0; i < 200 && lines() <= gw.gcReadings; i++) await sleep(10);
  gw.gcReadings = lines();
}
const window = (gw, duration, record) =>
  (async () => {
    if (record && opts.gc) await reading(gw);
    const t0 = nowUs();
    const r = await loadWindow(requestOf(gw).request, {
      connections: 16,
      duration,
      serverPid: gw.child.pid,
      cpu: '1',
      what: gw.key,
    });
    if (record) {
      gw.windows.push([t0, nowUs()]);
      gw.requests += r.total;
      gw.cpuUs += r.cpuUsPerReq * r.total;
      if (opts.gc) await reading(gw);
    }
  })();
try {
  for (const gw of gws) await window(gw, 3, false);
  for (let rep = 0; rep < Number(opts.reps); rep++)
    for (const gw of rep % 2 ? [...gws].reverse() : gws)
      await window(gw, Number(opts.duration), true);
} finally {
  await Promise.all(gws.map((gw) => stop(gw.child)));
  await Promise.all([stop(sink), stop(upstream)]);
  await db.drop();
}

/** Per request, over the recorded windows: GC pauses by kind, and CPU by thread. */
function gcPerRequest(gw) {
  const rows = readFileSync(join(out, `${gw.key}.gc.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const sum = {};
  const add = (k, v) => (sum[k] = (sum[k] ?? 0) + v);
  // Readings come in pairs, before and after each recorded window.
  for (let i = 0; i + 1 < rows.length; i += 2) {
    const [a, b] = [rows[i], rows[i + 1]];
    for (const kind of Object.keys(b.gc)) {
      add(`${kind} GCs a 1000 requests`, ((b.gc[kind][0] - a.gc[kind][0]) * 1000) / gw.requests);
      add(`${kind} GC pause µs/request`, ((b.gc[kind][1] - a.gc[kind][1]) * 1000) / gw.requests);
    }
    for (const t of Object.keys(b.threadsMs))
      add(
        `thread ${t} CPU µs/request`,
        ((b.threadsMs[t] - (a.threadsMs[t] ?? 0)) * 1000) / gw.requests,
      );
  }
  return sum;
}

if (opts.gc) {
  const all = gws.map(gcPerRequest);
  console.log(
    `route ${route ? 'REST' : 'MCP'}; requests ${gws.map((g) => `${g.key} ${g.requests}`).join(', ')}`,
  );
  const keys = [...new Set(all.flatMap((m) => Object.keys(m)))].sort();
  for (const k of keys)
    console.log(
      `${k.padEnd(34)} ${gws.map((g, i) => `${g.key} ${(all[i][k] ?? 0).toFixed(2).padStart(8)}`).join('  ')}`,
    );
  process.exit(0);
}

/** µs of self time a request by function, in the gateway's recorded windows. */
function perRequest(gw) {
  const dir = join(out, gw.key);
  const file = join(
    dir,
    readdirSync(dir).find((f) => f.endsWith('.cpuprofile')),
  );
  const prof = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const label = (n) => {
    const f = n.callFrame;
    const where = f.url ? f.url.replace(/^.*\/(node_modules|dist|src)\//, '$1/') : '';
    return `${f.functionName || '(anonymous)'} ${where}:${f.lineNumber + 1}`;
  };
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  const incl = new Map();
  let t = prof.startTime;
  let w = 0;
  prof.samples.forEach((id, i) => {
    const dt = prof.timeDeltas[i];
    t += dt;
    while (w < gw.windows.length && t > gw.windows[w][1]) w++;
    if (w >= gw.windows.length || t < gw.windows[w][0]) return;
    const key = label(byId.get(id));
    self.set(key, (self.get(key) ?? 0) + dt);
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const k = label(byId.get(cur));
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + dt);
    }
  });
  const scale = (m) => new Map([...m].map(([k, v]) => [k, v / gw.requests]));
  return { self: scale(self), incl: scale(incl) };
}

const [off, on] = gws.map(perRequest);
const busy = (m) => [...m].filter(([k]) => !k.startsWith('(idle)')).reduce((s, [, v]) => s + v, 0);
const f1 = (x) => x.toFixed(1).padStart(7);
console.log(
  `route ${route ? 'REST' : 'MCP'}; requests off ${gws[0].requests}, on ${gws[1].requests};` +
    ` /proc CPU µs/request off ${f1(gws[0].cpuUs / gws[0].requests)}, on ${f1(gws[1].cpuUs / gws[1].requests)};` +
    ` main thread busy µs/request (profile) off ${f1(busy(off.self))}, on ${f1(busy(on.self))}`,
);
const diff = (a, b) => {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys]
    .filter((k) => !k.startsWith('(idle)') && !k.startsWith('(root)'))
    .map((k) => [k, (b.get(k) ?? 0) - (a.get(k) ?? 0), a.get(k) ?? 0, b.get(k) ?? 0]);
};
const show = (title, rows) => {
  console.log(`\n${title}: on − off, off, on (µs a request)`);
  for (const [k, d, a, b] of rows
    .sort((x, y) => Math.abs(y[1]) - Math.abs(x[1]))
    .slice(0, Number(opts.top)))
    console.log(`${f1(d)} ${f1(a)} ${f1(b)}  ${k}`);
};
show('self time', diff(off.self, on.self));
show('inclusive time', diff(off.incl, on.incl));
console.log(`\nprofiles: ${out}`);
