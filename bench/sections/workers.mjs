// Section 13 of `npm run bench`: `serve --workers` (issue 40). The same HTTP grant call
// as section 3 (an upstream answering at once), served by one process and by a primary
// with two workers, taking turns (A B A B) under the same closed-loop load; the two
// workers both with node:cluster's default round-robin (the primary accepts and hands
// each connection on) and with NODE_CLUSTER_SCHED_POLICY=none (every worker accepts on
// the shared socket; the kernel picks). SO_REUSEPORT is not measured: net.Server has no
// reusePort before Node 22.12, and the gateway supports Node 20.
//
// Unlike the other sections the gateways are not pinned to CPU 0: a second worker needs a
// second core. On a 2-core machine that core is also the load generator's (pinned to CPU
// 1) and the upstream's, so two workers cannot double one: the figure says what a second
// worker buys when the box itself is the bottleneck. CPU per request is the whole process
// tree's (primary and workers), read from /proc around each window.
import { availableParallelism } from 'node:os';
import { writeItemSpec } from '../lib/item-spec.mjs';
import { loadWindow, verifyAnswer } from '../lib/load-window.mjs';
import { cpuMs, processTree } from '../lib/proc.mjs';
import { launchOnPort, stop, waitAnswer } from '../lib/processes.mjs';
import { f0, f2, range, stats } from '../lib/stats.mjs';
import { markdownTable } from './markdown-table.mjs';

const VARIANTS = {
  one: { label: '1 process (--workers 1)', workers: '1', env: {} },
  two: { label: '2 workers, round-robin (default)', workers: '2', env: {} },
  twoNone: {
    label: '2 workers, NODE_CLUSTER_SCHED_POLICY=none',
    workers: '2',
    env: { NODE_CLUSTER_SCHED_POLICY: 'none' },
  },
};

/** Requests each worker serves before the measured windows (see the warm-up below). */
const WARM_REQUESTS_PER_WORKER = 8_000;
const MAX_WARM_WINDOWS = 12;

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/** Both cores for the gateway (see the head of this file). */
async function startVariant(ctx, variant, file, upstream) {
  const args = ['node', ctx.main, 'serve', file, '--log-level', 'warn', '--no-watch'];
  const { child, url, startedAt } = await launchOnPort(
    [...args, '--base-url', upstream.url, '--workers', variant.workers],
    { env: variant.env, cpu: '0,1', cwd: ctx.root, pin: ctx.pin },
  );
  const readyMs = await waitAnswer({ url: `${url}/readyz` }, startedAt, child);
  return { child, url, readyMs };
}

/** utime + stime of the gateway and every process under it, in ms. */
const treeCpuMs = (pid) => processTree(pid).reduce((n, p) => n + (cpuMs(p) ?? 0), 0);

const requestOf = (gw) => ({
  url: `${gw.url}/api/get_item`,
  headers: JSON_HEADERS,
  body: JSON.stringify({ id: 7 }),
});

async function window(ctx, gw, duration, what) {
  const cpu0 = treeCpuMs(gw.child.pid);
  const r = await loadWindow(requestOf(gw), {
    connections: ctx.connections,
    duration,
    cpu: ctx.loadCpu,
    what,
  });
  const cpu1 = treeCpuMs(gw.child.pid);
  return { ...r, cpuUsPerReq: r.total ? ((cpu1 - cpu0) * 1000) / r.total : undefined };
}

async function run(ctx, { work }) {
  const file = writeItemSpec(work, 'bench-workers');
  const upstream = await ctx.startScript('upstream.mjs', {}, 'upstream');
  const gws = {};
  try {
    for (const [key, v] of Object.entries(VARIANTS))
      gws[key] = await startVariant(ctx, v, file, upstream);
    for (const [key, gw] of Object.entries(gws)) {
      await verifyAnswer(requestOf(gw), /widget/, VARIANTS[key].label);
      // Warm by requests, not by time: a fresh process costs 2-5x its steady rate for its
      // first few thousand requests, and each worker warms alone, so a 2 s warm-up would
      // measure two cold workers against one warm process.
      const want = WARM_REQUESTS_PER_WORKER * Number(VARIANTS[key].workers);
      let served = 0;
      for (let i = 0; served < want && i < (ctx.quick ? 1 : MAX_WARM_WINDOWS); i++)
        served += (await window(ctx, gw, ctx.warmupS, VARIANTS[key].label)).total;
      ctx.log(`workers warm-up: ${VARIANTS[key].label} served ${served} requests`);
    }
    const runs = Object.fromEntries(Object.keys(VARIANTS).map((k) => [k, []]));
    for (let rep = 0; rep < ctx.reps; rep++) {
      for (const [key, gw] of Object.entries(gws)) {
        const r = await window(ctx, gw, ctx.duration, VARIANTS[key].label);
        runs[key].push(r);
        ctx.log(
          `workers rep ${rep + 1}: ${VARIANTS[key].label} ${r.rps.toFixed(0)} rps, ${r.cpuUsPerReq?.toFixed(0)} µs CPU/req`,
        );
      }
    }
    const one = runs.one;
    const figures = Object.fromEntries(
      Object.entries(runs).map(([key, rs]) => [
        key,
        {
          label: VARIANTS[key].label,
          readyMs: gws[key].readyMs,
          rps: stats(rs.map((r) => r.rps)),
          p99Ms: stats(rs.map((r) => r.p99)),
          cpuUsPerReq: stats(rs.map((r) => r.cpuUsPerReq)),
          rpsRatio: stats(rs.map((r, i) => r.rps / one[i].rps)),
          cpuRatio: stats(rs.map((r, i) => r.cpuUsPerReq / one[i].cpuUsPerReq)),
          runs: rs,
        },
      ]),
    );
    return { cores: availableParallelism(), reps: ctx.reps, variants: figures };
  } finally {
    await Promise.all([...Object.values(gws).map((gw) => stop(gw.child)), stop(upstream.child)]);
  }
}

function report(s) {
  const rows = Object.values(s.variants).map((v) => [
    v.label,
    range(v.rps, f0),
    v === s.variants.one ? '1' : range(v.rpsRatio, f2),
    range(v.cpuUsPerReq, f0),
    v === s.variants.one ? '1' : range(v.cpuRatio, f2),
    range(v.p99Ms, f0),
  ]);
  const two = s.variants.two;
  return [
    [
      `### 13. \`serve --workers\`: two workers against one, POST /api/get_item (${s.cores} cores)`,
      '',
      ...markdownTable(
        [
          'gateway',
          'rps',
          'rps ÷ 1 process',
          'CPU µs/req (all processes)',
          'CPU ÷ 1 process',
          'p99 ms',
        ],
        rows,
      ),
      '',
      `Two workers give ${f2(two.rpsRatio.median)}× the throughput of one process on this machine, ` +
        `at ${f2(two.cpuRatio.median)}× its CPU per request (the primary's hand-off included). ` +
        'The gateways run on both cores, and so do the load generator (CPU 1) and the upstream: on a 2-core ' +
        'machine a second worker competes with them, so this is what it buys when the box is the bottleneck, ' +
        'not what it buys with a core to itself (a pod with a CPU limit of 2 and its load coming from elsewhere). ' +
        `Each gateway first served ${WARM_REQUESTS_PER_WORKER} requests per worker (at most ${MAX_WARM_WINDOWS} warm-up windows). ${s.reps} rounds, medians and ranges.`,
      '',
    ].join('\n'),
  ];
}

export const workersSection = {
  key: 'workers',
  label: 'serve --workers: 2 workers against 1',
  database: 'optional',
  run,
  report,
};
