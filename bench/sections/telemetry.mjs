// Section 11 of `npm run bench`: what OpenTelemetry costs (issue 30). The floor is the
// gateway with telemetry off (no OTLP endpoint: no @opentelemetry module is loaded);
// the subjects are the same build with `serve --otlp` pointing at a loopback collector
// that accepts and counts (bench/servers/otlp-sink.mjs), with the default sampler
// (parentbased_always_on: every request is traced) and with OTEL_TRACES_SAMPLER=
// always_off (the SDK loaded, nothing sampled). The same HTTP grant call as section 3,
// over MCP and over REST; then cold start to /readyz and RSS, off against on. With
// `--before <main.js>`, that build's off and traced gateways take their turns in the same
// groups, so the traced ÷ off ratio of both builds comes from the same windows' load.
import { join } from 'node:path';
import { stop, urlOf } from '../lib/processes.mjs';
import { rssMb } from '../lib/proc.mjs';
import { sleep } from '../lib/sleep.mjs';
import { f0, f1, f2, range, stats } from '../lib/stats.mjs';
import { callSpec, gatewayCalls } from './call-spec.mjs';
import { groupTable, runGroup } from './group.mjs';
import { markdownTable } from './markdown-table.mjs';

/**
 * Blank, so that an OTEL_* of the shell running the bench cannot switch the floor on or
 * change a subject's sampler (an empty variable counts as unset: telemetry-config.ts).
 */
const NO_OTEL = {
  OTEL_EXPORTER_OTLP_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: '',
  OTEL_TRACES_SAMPLER: '',
  OTEL_TRACES_SAMPLER_ARG: '',
  OTEL_SDK_DISABLED: '',
};

const VARIANTS = {
  off: { label: 'telemetry off', env: {}, otlp: false },
  on: { label: 'OTLP on, every request traced', env: {}, otlp: true },
  sampledOff: {
    label: 'OTLP on, OTEL_TRACES_SAMPLER=always_off',
    env: { OTEL_TRACES_SAMPLER: 'always_off' },
    otlp: true,
  },
};

/** Section 11's variants: with --before, also that build's off and traced gateways. */
function variantsOf(ctx) {
  if (!ctx.beforeMain) return VARIANTS;
  const main = ctx.beforeMain;
  return {
    ...VARIANTS,
    beforeOff: { label: 'telemetry off, the --before build', env: {}, otlp: false, main },
    beforeOn: {
      label: 'OTLP on, every request traced, the --before build',
      env: {},
      otlp: true,
      main,
    },
  };
}

/** `key` names the variant's profile directory under --profile (the load windows' gateways only). */
function startVariant(ctx, variant, spec, { upstream, collector, db }, key) {
  return ctx.startGateway(spec, {
    ...(variant.main && { main: variant.main }),
    env: { DATABASE_URL: db.url, ...NO_OTEL, ...variant.env },
    extraArgs: ['--base-url', upstream.url, ...(variant.otlp ? ['--otlp', collector.url] : [])],
    ...(ctx.profile && key && { profileDir: join(ctx.profile, `telemetry-${key}`) }),
  });
}

const collectorStats = async (collector) => (await fetch(`${collector.url}/stats`)).json();

/** The group of one route: off is the floor, the two on variants its subjects. */
function routeGroup(ctx, route, gws) {
  // gatewayCalls gives [MCP, REST]; the same request to each gateway.
  const pick = (gw) => gatewayCalls(gw, 'get_item', { restExpect: /"coverage"/ })[route];
  const [floor, ...subjects] = Object.entries(variantsOf(ctx)).map(([key, v]) => ({
    ...pick(gws[key]),
    name: `${route === 0 ? 'tools/call (modern)' : 'POST /api/get_item'}, ${v.label}`,
    target: undefined,
  }));
  return runGroup(ctx, route === 0 ? 'telemetry mcp' : 'telemetry rest', floor, subjects);
}

/** Cold starts, off and on in turn: time to /readyz 200, RSS a second later. */
async function startups(ctx, spec, deps) {
  const n = ctx.quick ? 2 : 5;
  const out = { off: { readyMs: [], rssMb: [] }, on: { readyMs: [], rssMb: [] } };
  for (let i = 0; i < n; i++) {
    for (const key of ['off', 'on']) {
      const gw = await startVariant(ctx, VARIANTS[key], spec, deps);
      out[key].readyMs.push(gw.readyMs);
      await sleep(1000);
      out[key].rssMb.push(rssMb(gw.child.pid));
      await stop(gw.child);
    }
  }
  const summary = (s) => ({ readyMs: stats(s.readyMs), rssMb: stats(s.rssMb) });
  return { starts: n, off: summary(out.off), on: summary(out.on) };
}

async function run(ctx, { work, db }) {
  const spec = callSpec(work);
  const upstream = await ctx.startScript('upstream.mjs', {}, 'upstream');
  // The collector on the load generator's CPU: it stands for one elsewhere, so it should
  // not take the gateway's CPU from it during the traced windows.
  const sink = ctx.launch(['node', join(ctx.bench, 'servers', 'otlp-sink.mjs')], {
    cpu: ctx.loadCpu,
  });
  const collector = { child: sink, url: await urlOf(sink, 'otlp collector') };
  const deps = { upstream, collector, db };
  const gws = {};
  try {
    const variants = variantsOf(ctx);
    for (const key of Object.keys(variants))
      gws[key] = await startVariant(ctx, variants[key], spec, deps, key);
    const rssIdleMb = Object.fromEntries(
      Object.entries(gws).map(([k, gw]) => [k, rssMb(gw.child.pid)]),
    );
    const mcp = await routeGroup(ctx, 0, gws);
    const rest = await routeGroup(ctx, 1, gws);
    const rssAfterLoadMb = Object.fromEntries(
      Object.entries(gws).map(([k, gw]) => [k, rssMb(gw.child.pid)]),
    );
    await Promise.all(Object.values(gws).map((gw) => stop(gw.child)));
    // Stopping flushed what was batched: the collector has seen all of it.
    const exported = await collectorStats(collector);
    if (exported.traces.requests === 0)
      throw new Error('telemetry: the traced gateway exported no spans to the collector');
    const startup = await startups(ctx, spec, deps);
    return {
      mcp,
      rest,
      rssIdleMb,
      rssAfterLoadMb,
      exported,
      startup,
      ...(ctx.beforeMain && { before: ctx.beforeMain }),
    };
  } finally {
    await Promise.all([
      ...Object.values(gws).map((gw) => stop(gw.child)),
      stop(collector.child),
      stop(upstream.child),
    ]);
  }
}

/** `x` with its sign, − or +. */
const signed = (x, f) => `${x < 0 ? '−' : '+'}${f(Math.abs(x))}`;

/** A ratio to off as a signed change: 0.86 → "−14.0 %". */
const change = (ratio) => {
  if (!ratio) return '–';
  return `${signed((ratio.median - 1) * 100, f1)} %`;
};

function report(s, sections = {}) {
  const on = (group) => group.find((r) => r.name.endsWith(VARIANTS.on.label));
  const sampledOff = (group) => group.find((r) => r.name.endsWith(VARIANTS.sampledOff.label));
  const lines = [
    ...(s.before ? beforeAfter(s) : []),
    groupTable('11. OpenTelemetry: the cost of on and off — tools/call (modern)', {
      results: s.mcp,
    }),
    groupTable(
      '11. OpenTelemetry: the cost of on and off — POST /api/get_item',
      { results: s.rest },
      () =>
        `Against off, traced: MCP rps ${change(on(s.mcp).ratio)}, REST rps ${change(on(s.rest).ratio)};` +
        ` sampler always_off: MCP ${change(sampledOff(s.mcp).ratio)}, REST ${change(sampledOff(s.rest).ratio)}` +
        ` (the CPU/req column is off ÷ this: under 1 is the CPU on costs).` +
        ` The collector (on the load generator's CPU, decoding nothing) received ${s.exported.traces.requests} trace exports` +
        ` (${f1(s.exported.traces.bytes / 1024 / 1024)} MB) and ${s.exported.metrics.requests} metric exports` +
        ` (every OTEL_METRIC_EXPORT_INTERVAL, 60 s by default, and at shutdown).` +
        ` Gateway RSS idle: off ${f1(s.rssIdleMb.off)} MB, on ${f1(s.rssIdleMb.on)} MB, on+always_off ${f1(s.rssIdleMb.sampledOff)} MB;` +
        ` after load ${f1(s.rssAfterLoadMb.off)}, ${f1(s.rssAfterLoadMb.on)}, ${f1(s.rssAfterLoadMb.sampledOff)} MB.`,
    ),
    `Start-up (the call spec, off and on in turn, ${s.startup.starts} each):`,
    '',
    ...markdownTable(
      ['gateway', 'process start to /readyz 200, ms', 'RSS 1 s after ready, MB'],
      [
        ['telemetry off', range(s.startup.off.readyMs, f0), range(s.startup.off.rssMb, f1)],
        ['OTLP on', range(s.startup.on.readyMs, f0), range(s.startup.on.rssMb, f1)],
      ],
    ),
    '',
    `On − off (medians): ${signed(s.startup.on.readyMs.median - s.startup.off.readyMs.median, f0)} ms to ready, ${signed(s.startup.on.rssMb.median - s.startup.off.rssMb.median, f1)} MB RSS.`,
    '',
  ];
  // Off against section 3 of the same run, when both ran: the same call, the same build.
  const http = sections.http?.results;
  if (http) {
    const mcp3 = http.find((r) => r.name === 'mcp-beaver tools/call (modern)');
    const rest3 = http.find((r) => r.name === 'mcp-beaver POST /api/get_item');
    const offMcp = s.mcp.find((r) => r.role === 'floor');
    const offRest = s.rest.find((r) => r.role === 'floor');
    lines.push(
      `Off beside section 3 of this run (same call, same build): tools/call ${f0(offMcp.rps.median)} rps and ${f0(offMcp.cpuUsPerReq.median)} µs/req here,` +
        ` ${f0(mcp3.rps.median)} rps and ${f0(mcp3.cpuUsPerReq.median)} µs/req there (${f2(mcp3.ratio.median)}× the bare fastify floor);` +
        ` REST ${f0(offRest.rps.median)} rps and ${f0(offRest.cpuUsPerReq.median)} µs/req here, ${f0(rest3.rps.median)} rps and ${f0(rest3.cpuUsPerReq.median)} µs/req there (${f2(rest3.ratio.median)}×).`,
      '',
    );
  }
  return [lines.join('\n')];
}

/**
 * Traced ÷ off, CPU per request, of each build, from the same repetitions: the --before
 * build's pair and this build's pair took their turns in the same rounds.
 */
function beforeAfter(s) {
  const perRep = (group, off, on) => {
    const offRuns = group.find((r) => r.name.endsWith(off)).runs;
    const onRuns = group.find((r) => r.name.endsWith(on)).runs;
    return stats(onRuns.map((r, i) => r.cpuUsPerReq / offRuns[i].cpuUsPerReq));
  };
  const row = (label, group) => {
    const before = perRep(group, VARIANTS_BEFORE.off, VARIANTS_BEFORE.on);
    const after = perRep(group, VARIANTS.off.label, VARIANTS.on.label);
    return [label, range(before, f2), range(after, f2)];
  };
  return [
    `### 11. Traced ÷ off, CPU per request: the --before build (${s.before}) and this one, same turns`,
    '',
    ...markdownTable(
      ['route', 'before: traced ÷ off', 'this build: traced ÷ off'],
      [row('tools/call (modern)', s.mcp), row('POST /api/get_item', s.rest)],
    ),
    '',
  ];
}

const VARIANTS_BEFORE = {
  off: 'telemetry off, the --before build',
  on: 'OTLP on, every request traced, the --before build',
};

/** Without Postgres it still runs: the spec's database line then points nowhere. */
export const telemetrySection = {
  key: 'telemetry',
  label: 'OpenTelemetry on and off',
  database: 'optional',
  run,
  report,
};
