// Traced ÷ off, CPU per request, of two builds, with every gateway under load at the
// same time (issue 40). Section 11 takes turns (A B A B), and on a machine shared with
// other work the load changes between two windows by more than telemetry costs: the
// same build's off gateway measured 265–1863 µs a request in one run. Here the four
// gateways (before off, before traced, after off, after traced) share CPU 0 and are
// loaded in the same windows, each by its own load generator on CPU 1 with the same
// connections, so what the machine does to one window it does to all four; each
// gateway's CPU per request is its own (/proc), and each ratio is taken within a window.
//
//   node bench/telemetry-side-by-side.mjs BEFORE/dist/cli/main.js AFTER/dist/cli/main.js
//        [--route mcp|rest] [--reps 8] [--duration 3] [--connections 4]
//
// The call is section 3's HTTP grant (bench/sections/call-spec.mjs); the collector is
// bench/servers/otlp-sink.mjs, on the load generators' CPU. Prints a JSON line per
// window and a summary: medians (min–max) over the windows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { cpuMs } from './lib/proc.mjs';
import { launch, launchOnPort, runJson, stopAll, urlOf, waitAnswer } from './lib/processes.mjs';
import { f2, range, stats } from './lib/stats.mjs';
import { callSpec, gatewayCalls } from './sections/call-spec.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    route: { type: 'string', default: 'mcp' },
    reps: { type: 'string', default: '8' },
    duration: { type: 'string', default: '3' },
    connections: { type: 'string', default: '4' },
  },
});
const [beforeMain, afterMain] = positionals.map((p) => resolve(p));
if (!beforeMain || !afterMain)
  throw new Error('usage: node bench/telemetry-side-by-side.mjs BEFORE/main.js AFTER/main.js');
const log = (m) => process.stderr.write(`[side-by-side] ${m}\n`);

/** Blank, so that the shell's OTEL_* cannot switch the off gateways on. */
const NO_OTEL = {
  OTEL_EXPORTER_OTLP_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: '',
  OTEL_TRACES_SAMPLER: '',
  OTEL_SDK_DISABLED: '',
};

const work = mkdtempSync(join(tmpdir(), 'mcpb-side-'));
try {
  const spec = callSpec(work);
  const upstream = launch(['node', join(ROOT, 'bench', 'servers', 'upstream.mjs')], { cpu: '0' });
  const sink = launch(['node', join(ROOT, 'bench', 'servers', 'otlp-sink.mjs')], { cpu: '1' });
  const [upstreamUrl, collectorUrl] = await Promise.all([
    urlOf(upstream, 'upstream'),
    urlOf(sink, 'otlp collector'),
  ]);
  const variants = [
    ['before off', beforeMain, false],
    ['before traced', beforeMain, true],
    ['after off', afterMain, false],
    ['after traced', afterMain, true],
  ];
  const gws = [];
  for (const [name, main, traced] of variants) {
    const args = ['node', main, 'serve', spec, '--log-level', 'warn', '--no-watch'];
    args.push('--base-url', upstreamUrl, ...(traced ? ['--otlp', collectorUrl] : []));
    const { child, url, startedAt } = await launchOnPort(args, {
      env: { DATABASE_URL: 'postgres://127.0.0.1:1/none', ...NO_OTEL },
      cpu: '0',
      cwd: ROOT,
    });
    // Ready when the call answers: its database points nowhere (the HTTP grant needs
    // none), so /readyz, which asks the pool, would not say so.
    const call = gatewayCalls({ url, child }, 'get_item', { restExpect: /"coverage"/ })[
      opts.route === 'rest' ? 1 : 0
    ];
    await waitAnswer(call.request, startedAt, child, { expect: call.expect });
    gws.push({ name, pid: child.pid, request: call.request });
  }
  const window = (duration) =>
    Promise.all(
      gws.map(async (gw) => {
        const cpu0 = cpuMs(gw.pid);
        const cfg = { ...gw.request, connections: Number(opts.connections), duration };
        const r = await runJson(
          ['node', join(ROOT, 'bench', 'load.mjs'), JSON.stringify(cfg)],
          { cpu: '1' },
          'load generator',
        );
        const cpu1 = cpuMs(gw.pid);
        if (r.errors || r.timeouts || r.non2xx)
          throw new Error(`${gw.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        return { rps: r.rps, total: r.total, cpuUsPerReq: ((cpu1 - cpu0) * 1000) / r.total };
      }),
    );
  log('warm-up');
  await window(3);
  const windows = [];
  for (let rep = 0; rep < Number(opts.reps); rep++) {
    const w = await window(Number(opts.duration));
    const byName = Object.fromEntries(gws.map((g, i) => [g.name, w[i]]));
    windows.push(byName);
    process.stdout.write(`${JSON.stringify({ rep, route: opts.route, ...byName })}\n`);
  }
  const ratio = (on, off) => stats(windows.map((w) => w[on].cpuUsPerReq / w[off].cpuUsPerReq));
  const cpu = (name) => stats(windows.map((w) => w[name].cpuUsPerReq));
  const summary = {
    route: opts.route,
    windows: windows.length,
    cpuUsPerReq: Object.fromEntries(gws.map((g) => [g.name, cpu(g.name)])),
    tracedOverOff: {
      before: ratio('before traced', 'before off'),
      after: ratio('after traced', 'after off'),
    },
    afterOverBeforeOff: ratio('after off', 'before off'),
  };
  log(
    `${opts.route}: traced ÷ off, CPU per request: before ${range(summary.tracedOverOff.before, f2)},` +
      ` after ${range(summary.tracedOverOff.after, f2)}; after off ÷ before off ${range(summary.afterOverBeforeOff, f2)}`,
  );
  process.stdout.write(`${JSON.stringify(summary)}\n`);
} finally {
  stopAll();
  rmSync(work, { recursive: true, force: true });
}
