// Section `warmup` of `npm run bench` (issue 40): what a fresh process costs before it
// reaches its steady rate. A pod that has just scaled up serves real traffic at once, so
// the first thousands of requests matter, not only the steady state the other sections
// measure. For each surface (an HTTP grant's tools/call over MCP, and the same grant over
// REST) a fresh `serve` takes WINDOWS windows of WINDOW requests, closed-loop from this
// process; the figure of a window is the gateway's own CPU (every thread, /proc
// schedstat, ns) over its requests. Steady is the median of the last STEADY windows;
// each window is reported as a ratio to it, so a busy machine moves the figures less than
// it moves absolute times. Each surface is measured with the gateway's own warm-up off
// (`--warm-up off`, the default: the curve of issue 40) and at 500 (as the image and the
// Helm chart set it), so the report shows what
// the warm-up takes away and what it adds to start-up (ready ms, start-up CPU).
// BENCH_WARMUP_VARIANTS=off,1000,4000 measures other sizes (how the default was chosen).
// Fresh processes of every surface and variant take turns, ROUNDS each.
import { writeItemSpec } from '../lib/item-spec.mjs';
import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import { JSON_HEADERS, modernRequest } from '../lib/mcp-requests.mjs';
import { cpuNs } from '../lib/proc.mjs';
import { stop } from '../lib/processes.mjs';
import { f1, f2, range, stats } from '../lib/stats.mjs';

const WINDOW = 500;
const WINDOWS = 16;
const STEADY = 4;
/** In flight at once: enough to keep the gateway busy, as a small pool of callers would. */
const CONCURRENCY = 8;
/** The first windows whose mean is the headline "first windows ÷ steady". */
const FIRST = 4;

const SURFACES = {
  mcp: (url) => ({
    ...modernRequest(url, 'tools/call', { name: 'get_item', arguments: { id: 42 } }, 'get_item'),
    expect: /"isError":false/,
  }),
  rest: (url) => ({
    url: `${url}/api/get_item`,
    headers: JSON_HEADERS,
    body: JSON.stringify({ id: 42 }),
    expect: /widget/,
  }),
};

/** `count` requests, CONCURRENCY at a time; throws at the first unexpected answer. */
async function drive(agent, req, count) {
  let left = count;
  const one = async () => {
    while (left > 0) {
      left--;
      const r = await fetch(req.url, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        dispatcher: agent,
      });
      const text = await r.text();
      if (!req.expect.test(text)) throw new Error(`unexpected answer: ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, one));
}

/** `--warm-up` values measured: off (the default), and the image's and chart's 500. */
const VARIANTS = (process.env.BENCH_WARMUP_VARIANTS ?? 'off,500').split(',');

/**
 * One fresh gateway on `surface` with warm-up `variant`: its ready time, start-up CPU
 * and each window's µs/request.
 */
async function freshCurve(ctx, spec, upstreamUrl, surface, variant) {
  // The variable rather than the flag: a --gateway build from before the warm-up ignores it.
  const gw = await ctx.startGateway(spec, {
    extraArgs: ['--base-url', upstreamUrl],
    env: { MCP_BEAVER_WARM_UP: variant === 'default' ? '' : variant },
  });
  const agent = new Agent({ connections: CONCURRENCY });
  try {
    const pid = gw.child.pid;
    const bootNs = cpuNs(pid);
    const req = SURFACES[surface](gw.url);
    const windows = [];
    for (let w = 0; w < WINDOWS; w++) {
      const before = cpuNs(pid);
      await drive(agent, req, WINDOW);
      windows.push((cpuNs(pid) - before) / 1000 / WINDOW);
    }
    return { readyMs: gw.readyMs, bootCpuMs: bootNs / 1e6, windows };
  } finally {
    await agent.close();
    await stop(gw.child);
  }
}

async function run(ctx, { work }) {
  const upstream = await ctx.startScript('upstream.mjs', {}, 'upstream');
  const spec = writeItemSpec(work, 'bench-warmup');
  const rounds = ctx.quick ? 1 : Math.max(1, ctx.reps);
  const runs = Object.keys(SURFACES).flatMap((surface) =>
    VARIANTS.map((variant) => ({ surface, variant, key: `${surface}, warm-up ${variant}` })),
  );
  const bySurface = Object.fromEntries(runs.map((r) => [r.key, []]));
  const until = performance.now() + 10 * 60_000;
  try {
    for (let r = 0; r < rounds && performance.now() < until; r++)
      for (const { surface, variant, key } of runs)
        bySurface[key].push(await freshCurve(ctx, spec, upstream.url, surface, variant));
  } finally {
    await stop(upstream.child);
  }
  const surfaces = {};
  for (const [surface, curves] of Object.entries(bySurface)) {
    if (curves.length === 0) continue;
    const ratios = curves.map((c) => {
      const steady = stats(c.windows.slice(-STEADY)).median;
      return { steady, perWindow: c.windows.map((w) => w / steady) };
    });
    surfaces[surface] = {
      curves,
      steadyUs: stats(ratios.map((x) => x.steady)),
      firstOverSteady: stats(ratios.map((x) => x.perWindow[0])),
      firstNOverSteady: stats(
        ratios.map((x) => x.perWindow.slice(0, FIRST).reduce((a, b) => a + b, 0) / FIRST),
      ),
      // The first window at or under 1.2× steady: requests served before it was reached.
      warmAfter: stats(
        ratios.map((x) => {
          const i = x.perWindow.findIndex((v) => v <= 1.2);
          return (i < 0 ? WINDOWS : i) * WINDOW;
        }),
      ),
      perWindow: Array.from({ length: WINDOWS }, (_, i) =>
        stats(ratios.map((x) => x.perWindow[i])),
      ),
      readyMs: stats(curves.map((c) => c.readyMs)),
      bootCpuMs: stats(curves.map((c) => c.bootCpuMs)),
    };
  }
  return { window: WINDOW, windows: WINDOWS, steadyWindows: STEADY, first: FIRST, surfaces };
}

function report(s) {
  const out = [
    `### Warm-up: a fresh process, ${s.windows} windows of ${s.window} requests (HTTP grant)`,
    '',
    `Gateway CPU (all threads) per request in each window ÷ its steady rate (median of the ` +
      `last ${s.steadyWindows} windows of the same process); median (min–max) over fresh processes. ` +
      `Warm after: requests served before the first window within 1.2× of steady.`,
    '',
    `| surface | steady µs/req | window 1 ÷ steady | windows 1–${s.first} ÷ steady | warm after | ready ms | start-up CPU ms |`,
    '|---|---|---|---|---|---|---|',
  ];
  for (const [name, x] of Object.entries(s.surfaces))
    out.push(
      `| ${name} | ${range(x.steadyUs, f1)} | ${range(x.firstOverSteady, f2)} | ${range(x.firstNOverSteady, f2)} | ` +
        `${range(x.warmAfter, (v) => v.toFixed(0))} | ${range(x.readyMs, (v) => v.toFixed(0))} | ${range(x.bootCpuMs, (v) => v.toFixed(0))} |`,
    );
  out.push('', '| window | ' + Object.keys(s.surfaces).join(' | ') + ' |');
  out.push(
    '|---|' +
      Object.keys(s.surfaces)
        .map(() => '---|')
        .join(''),
  );
  for (let i = 0; i < s.windows; i++)
    out.push(
      `| ${i + 1} | ` +
        Object.values(s.surfaces)
          .map((x) => f2(x.perWindow[i].median))
          .join(' | ') +
        ' |',
    );
  out.push('');
  return out;
}

export const warmupSection = {
  key: 'warmup',
  label: 'warm-up of a fresh process',
  run,
  report,
};
