/**
 * `npm run soak -- --overload`: the overload figures the tests no longer assert
 * (issue 14: tests assert outcomes, timing is measured here). Two bursts against the
 * real `mcp-beaver serve` process, loopback only, no Postgres:
 *
 * 1. At the door: `--calls` concurrent calls (5,000) through a gateway capped at
 *    `--cap` (200) calls in flight, the upstream holding every admitted call until the
 *    excess is answered. Time to shed inside the gateway (access log durationMs) and as
 *    the client saw it, /healthz latency from a probe process (a new connection each,
 *    and a kept-alive one) during the burst and while the cap is held, memory and
 *    descriptors.
 * 2. At the upstream: `--admission-calls` concurrent calls (2,000, twice: cold, then
 *    with the service time measured) to a grant whose upstream takes `--upstream-ms`
 *    (1,500) with a `--timeout` (3s) deadline and `--connections` (256) per origin,
 *    `--max-in-flight 4096` so that only the upstream pool limits. Counts of 200, 503
 *    and 504, how long a refused call waited for its 503, Retry-After values.
 *
 * Exits non-zero when a call was not answered 200 or 503, a 503 lacked Retry-After,
 * or a /healthz probe failed.
 *
 *   npm run soak -- --overload [--calls 5000 --cap 200] [--admission-calls 2000
 *     --upstream-ms 1500 --timeout 3s --connections 256] [--json out.json]
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { MB, procStatus, resetPeak } from '../bench/lib/proc.mjs';
import { sleep } from '../bench/lib/sleep.mjs';
import { percentile } from '../bench/lib/stats.mjs';
import { startUpstream } from '../test/helpers/upstream.ts';
import { serveProcess } from '../test/reliability/serve-process.ts';
import { startProbe } from '../test/reliability/start-probe.ts';

/** p50 and p99 of the `ms` of each answer. */
const msSpread = (answers) => {
  const xs = answers.map((a) => a.ms);
  return { p50: percentile(xs, 50), p99: percentile(xs, 99) };
};

function spec(baseUrl, timeout, connections) {
  return `
wrap "overload" version="1.0.0"
base-url "${baseUrl}"${connections ? ` connections=${connections}` : ''}
timeout "${timeout}"
can get slow {
    describe "A slow answer."
    path "/slow/{n}"
}
`;
}

/** `count` concurrent POST /api/get_slow; each resolves with status, code, Retry-After and ms. */
function fire(url, agent, from, count) {
  return Array.from({ length: count }, (_, i) => {
    const started = performance.now();
    return request(`${url}/api/get_slow`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n: String(from + i) }),
      headersTimeout: 120_000,
      bodyTimeout: 120_000,
    }).then(
      async (res) => {
        const body = JSON.parse(await res.body.text());
        return {
          status: res.statusCode,
          code: res.statusCode === 200 ? 'ok' : body.error?.code,
          retryAfter: res.headers['retry-after'],
          ms: performance.now() - started,
        };
      },
      (err) => ({ status: err.code ?? String(err), ms: performance.now() - started }),
    );
  });
}

const ms = (v) => `${v.toFixed(v < 10 ? 2 : 0)} ms`;
const dist = (values) =>
  values.length === 0
    ? 'n=0'
    : `n=${values.length} p50 ${ms(percentile(values, 50))}, p99 ${ms(percentile(values, 99))}, max ${ms(Math.max(...values))}`;

async function atTheDoor(calls, cap, problems) {
  let release = () => undefined;
  const released = new Promise((r) => (release = r));
  const upstream = await startUpstream(async (req, res) => {
    await released;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ n: req.path.split('/').pop() }));
  });
  const gw = await serveProcess(spec(upstream.url, '60s'), ['--max-in-flight', String(cap)]);
  try {
    const before = procStatus(gw.pid);
    const probes = [
      await startProbe(gw.url, gw.pid, 'fresh'),
      await startProbe(gw.url, gw.pid, 'keep'),
    ];
    await sleep(300);
    resetPeak(gw.pid);
    const agent = new Agent({ connections: calls + 100, connect: { timeout: 60_000 } });
    const burstStart = Date.now();
    const shots = fire(gw.url, agent, 0, calls);
    const settled = [];
    for (const s of shots) void s.then((x) => settled.push(x));
    while (settled.length < calls - cap) await sleep(10);
    const burstEnd = Date.now();
    await sleep(1_500);
    const peak = procStatus(gw.pid);
    const [fresh, keep] = await Promise.all(probes.map((p) => p.stop()));
    release();
    const all = await Promise.all(shots);
    await agent.close();
    const after = procStatus(gw.pid);
    const shed = all.filter((s) => s.status === 503);
    const ok = all.filter((s) => s.status === 200);
    const other = all.length - shed.length - ok.length;
    if (other > 0) problems.push(`at the door: ${other} calls answered neither 200 nor 503`);
    if (shed.some((s) => s.retryAfter === undefined))
      problems.push('at the door: a 503 without Retry-After');
    const inside = gw
      .output()
      .split('\n')
      .filter((l) => l.includes('"msg":"request"') && l.includes('"status":503'))
      .map((l) => Number(/"durationMs":([\d.]+)/.exec(l)?.[1]));
    const window = (r, from, to) =>
      r.probes.filter((p) => p.at >= from && p.at <= to).map((p) => p.ms);
    for (const [name, r] of [
      ['fresh', fresh],
      ['keep', keep],
    ])
      if (r.probes.some((p) => p.status !== 200))
        problems.push(`at the door: a /healthz probe (${name}) failed`);
    const peakRss = Math.max(peak.hwm, ...fresh.rss, ...keep.rss);
    const figures = {
      calls,
      cap,
      admitted: ok.length,
      shed: shed.length,
      other,
      shedInsideMs: {
        p50: percentile(inside, 50),
        p99: percentile(inside, 99),
        max: Math.max(...inside),
      },
      shedClientMs: msSpread(shed),
      excessAnsweredAfterMs: burstEnd - burstStart,
      healthzFresh: {
        burst: window(fresh, burstStart, burstEnd),
        held: window(fresh, burstEnd, Infinity),
      },
      healthzKeep: {
        burst: window(keep, burstStart, burstEnd),
        held: window(keep, burstEnd, Infinity),
      },
      rssMb: { before: before.rss / MB, peak: peakRss / MB, after: after.rss / MB },
      fds: { before: before.fds, held: peak.fds, after: after.fds },
    };
    console.log(
      `at the door: ${calls} concurrent calls, cap ${cap}: ${ok.length} admitted, ${shed.length} shed with 503, ${other} other\n` +
        `  shed inside the gateway (access log): ${dist(inside)}\n` +
        `  shed as the client saw it: ${dist(shed.map((s) => s.ms))}; every excess call answered ${figures.excessAnsweredAfterMs} ms after the first was sent\n` +
        `  /healthz, new connection each: during the burst ${dist(figures.healthzFresh.burst)}; while held ${dist(figures.healthzFresh.held)}\n` +
        `  /healthz, kept-alive: during the burst ${dist(figures.healthzKeep.burst)}; while held ${dist(figures.healthzKeep.held)}; ${keep.resets} keep-alive resets\n` +
        `  RSS ${figures.rssMb.before.toFixed(0)} MB before, peak ${figures.rssMb.peak.toFixed(0)} MB, ${figures.rssMb.after.toFixed(0)} MB after; fds ${before.fds} / ${peak.fds} / ${after.fds}`,
    );
    return figures;
  } finally {
    release();
    await gw.stop();
    await upstream.close();
  }
}

/**
 * An upstream that answers every request after `upstreamMs`, in a process of its own:
 * in this process, the load generator's event loop would make it slower than it says.
 */
async function slowUpstreamProcess(upstreamMs) {
  const code = `
    const server = require('node:http').createServer((req, res) => {
      req.resume();
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ n: req.url.split('/').pop() }));
      }, ${Number(upstreamMs)});
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));
  `;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (b) => (out += b.toString()));
  while (!out.includes('\n')) await sleep(10);
  return {
    url: `http://127.0.0.1:${out.trim()}`,
    close: async () => {
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
    },
  };
}

async function atTheUpstream(calls, upstreamMs, timeout, connections, problems) {
  const upstream = await slowUpstreamProcess(upstreamMs);
  const gw = await serveProcess(spec(upstream.url, timeout, connections), [
    '--max-in-flight',
    '4096',
  ]);
  const rounds = [];
  try {
    for (const [i, round] of ['cold', 'warm'].entries()) {
      const agent = new Agent({ connections: calls + 100, connect: { timeout: 60_000 } });
      const all = await Promise.all(fire(gw.url, agent, i * calls, calls));
      await agent.close();
      const by = (st) => all.filter((s) => s.status === st);
      const ok = by(200);
      const shed = by(503);
      const late = by(504);
      const other = all.length - ok.length - shed.length - late.length;
      if (late.length + other > 0)
        problems.push(`at the upstream (${round}): ${late.length} × 504, ${other} other answers`);
      if (shed.some((s) => s.retryAfter === undefined))
        problems.push('at the upstream: a 503 without Retry-After');
      const retryAfter = [...new Set(shed.map((s) => s.retryAfter))].sort().join(', ');
      rounds.push({
        round,
        ok: ok.length,
        shed: shed.length,
        timedOut: late.length,
        other,
        shedMs: msSpread(shed),
        okMs: msSpread(ok),
        retryAfter,
      });
      console.log(
        `at the upstream (${round}): ${calls} concurrent calls, upstream ${upstreamMs} ms, deadline ${timeout}, ${connections ?? 256} connections: ` +
          `${ok.length} × 200, ${shed.length} × 503, ${late.length} × 504, ${other} other\n` +
          `  503 answered after ${dist(shed.map((s) => s.ms))} (Retry-After ${retryAfter || '-'})\n` +
          `  200 answered after ${dist(ok.map((s) => s.ms))}`,
      );
    }
    return rounds;
  } finally {
    await gw.stop();
    await upstream.close();
  }
}

export async function runOverload(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      calls: { type: 'string', default: '5000' },
      cap: { type: 'string', default: '200' },
      'admission-calls': { type: 'string', default: '2000' },
      'upstream-ms': { type: 'string', default: '1500' },
      timeout: { type: 'string', default: '3s' },
      connections: { type: 'string' },
      json: { type: 'string' },
    },
  });
  const problems = [];
  const door = await atTheDoor(Number(values.calls), Number(values.cap), problems);
  const upstream = await atTheUpstream(
    Number(values['admission-calls']),
    Number(values['upstream-ms']),
    values.timeout,
    values.connections && Number(values.connections),
    problems,
  );
  if (values.json)
    writeFileSync(values.json, `${JSON.stringify({ door, upstream, problems }, null, 2)}\n`);
  for (const p of problems) console.log(`FAIL ${p}`);
  console.log(problems.length === 0 ? 'overload: PASS' : `overload: FAIL (${problems.length})`);
  return problems.length === 0 ? 0 : 1;
}
