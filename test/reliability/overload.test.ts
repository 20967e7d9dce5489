/**
 * Overload (issue 11, security.md "Process"): 2,000 concurrent calls to a slow
 * upstream through a gateway capped at 200 calls in flight. The excess is shed with
 * 503 OVERLOADED and Retry-After while the admitted calls are still held upstream,
 * /healthz (probed every 50 ms from another process) answers every probe, the process
 * lives, and its memory stays bounded.
 *
 * Outcomes only (issue 14): the upstream holds every call until the test releases it,
 * so "shed, never queued" is that all 4,800 were answered while the 200 were held,
 * whatever the machine's speed. The latencies are printed, not asserted; `npm run soak
 * -- --overload` measures them (docs/reliability.md).
 */
import type { ChildProcess } from 'node:child_process';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MB, procStatus, resetPeak } from '../../bench/lib/proc.mjs';
import { sleep } from '../../bench/lib/sleep.mjs';
import { f0, f1, f2, percentile } from '../../bench/lib/stats.mjs';
import { startHeldUpstream, type HeldUpstream } from '../helpers/upstream.js';
import { serveProcess, type ServeProcess } from './serve-process.js';
import { startProbe as startProbeProcess, type ProbeReport } from './start-probe.js';

/**
 * 2,000 rather than the 5,000 of issue 11: on a busy 2-core machine the test's own
 * client could not write 5,000 requests before the gateway's 10 s header timeout
 * (slowloris bound) answered the last ones 408. `npm run soak -- --overload` takes more.
 */
const CALLS = 2_000;
const CAP = 200;
/** How long the admitted calls are held after the burst, with the probe running. */
const HOLD_AFTER_BURST_MS = 1_500;

let upstream: HeldUpstream;
let gw: ServeProcess | undefined;

beforeAll(async () => {
  upstream = await startHeldUpstream();
});

const probeChildren = new Set<ChildProcess>();

afterAll(async () => {
  for (const c of probeChildren) if (c.exitCode === null) c.kill('SIGKILL');
  upstream?.release();
  await gw?.stop();
  await upstream?.close();
});

/** The deadline outlasts the test on any machine: the held calls end when the test releases them. */
function spec(baseUrl: string): string {
  return `
wrap "overload" version="1.0.0"
base-url "${baseUrl}"
timeout "5m"
can get slow {
    describe "A slow answer."
    path "/slow/{n}"
}
`;
}

/** A probe whose process afterAll kills should the test fail before stopping it. */
async function startProbe(url: string, pid: number, mode: 'fresh' | 'keep') {
  const probe = await startProbeProcess(url, pid, mode);
  probeChildren.add(probe.child);
  return probe;
}

interface Shot {
  n: number;
  ms: number;
  status: number | string;
  code?: string;
  retryAfter?: unknown;
}

it('sheds 2,000 concurrent calls beyond the cap of 200 with 503 while the admitted ones are held; every /healthz probe answered; memory bounded', async () => {
  gw = await serveProcess(spec(upstream.url), ['--max-in-flight', String(CAP)]);
  const url = gw.url;
  const before = procStatus(gw.pid)!;
  // Two probes: one opening a new connection each time (a kubelet), one on a kept-alive connection.
  const probes = [await startProbe(url, gw.pid, 'fresh'), await startProbe(url, gw.pid, 'keep')];
  await sleep(300);
  resetPeak(gw.pid);

  const agent = new Agent({ connections: CALLS + 100, connect: { timeout: 30_000 } });
  const burstStart = Date.now();
  const shots: Promise<Shot>[] = [];
  for (let n = 0; n < CALLS; n++) {
    const started = performance.now();
    shots.push(
      request(`${url}/api/get_slow`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json' },
        body: `{"n":"${n}"}`,
        headersTimeout: 60_000,
        bodyTimeout: 60_000,
      }).then(
        async (res) => {
          const text = await res.body.text();
          return {
            n,
            ms: performance.now() - started,
            status: res.statusCode,
            code:
              res.statusCode === 200
                ? 'ok'
                : (JSON.parse(text) as { error: { code: string } }).error.code,
            retryAfter: res.headers['retry-after'],
          };
        },
        (err: { code?: string; message: string }) => ({
          n,
          ms: performance.now() - started,
          status: err.code ?? err.message,
        }),
      ),
    );
  }
  // The excess comes back while the admitted calls are still held upstream (they are
  // answered only once released below).
  const settled: Shot[] = [];
  for (const s of shots) void s.then((x) => settled.push(x));
  while (settled.length < CALLS - CAP) await sleep(10);
  const answeredWhileHeld = settled.length;
  const burstEnd = Date.now();
  await sleep(HOLD_AFTER_BURST_MS);
  const peak = procStatus(gw.pid)!;
  const [fresh, keep] = await Promise.all(probes.map((p) => p.stop()));
  const heldUpstream = upstream.requests.length;
  upstream.release();
  const all = await Promise.all(shots);
  await agent.close();
  const after = procStatus(gw.pid)!;

  const shed = all.filter((s) => s.status === 503);
  const ok = all.filter((s) => s.status === 200);
  const other = all.filter((s) => s.status !== 503 && s.status !== 200);
  expect(other, JSON.stringify(other.slice(0, 5))).toHaveLength(0);
  expect(answeredWhileHeld).toBe(CALLS - CAP);
  expect(heldUpstream).toBe(CAP);
  expect(ok).toHaveLength(CAP);
  expect(shed).toHaveLength(CALLS - CAP);
  for (const s of shed) {
    expect(s.code).toBe('OVERLOADED');
    expect(s.retryAfter).toBe('1');
  }
  const shedMs = shed.map((s) => s.ms);
  // The gateway's own view: the access log's durationMs of every 503 it sent.
  const gatewayShedMs = gw
    .output()
    .split('\n')
    .filter((l) => l.includes('"msg":"request"') && l.includes('"status":503'))
    .map((l) => Number(/"durationMs":([\d.]+)/.exec(l)?.[1]));
  const stats = (r: ProbeReport, from: number, to: number) => {
    const ms = r.probes.filter((p) => p.at >= from && p.at <= to).map((p) => p.ms);
    return `n=${ms.length} p50 ${f1(percentile(ms, 50))} ms, p99 ${f1(percentile(ms, 99))} ms, max ${Math.max(...ms).toFixed(1)} ms`;
  };
  const peakRss = Math.max(peak.hwm, ...fresh!.rss, ...keep!.rss);
  console.log(
    `overload: ${CALLS} concurrent calls, cap ${CAP}, upstream holding until released: ${shed.length} shed with 503 OVERLOADED, ${ok.length} admitted\n` +
      `  shed inside the gateway (access log durationMs, n=${gatewayShedMs.length}): p50 ${f2(percentile(gatewayShedMs, 50))} ms, p99 ${f2(percentile(gatewayShedMs, 99))} ms, max ${Math.max(...gatewayShedMs).toFixed(2)} ms\n` +
      `  shed as the client saw it (connect, queue, answer): p50 ${f0(percentile(shedMs, 50))} ms, p99 ${f0(percentile(shedMs, 99))} ms; every excess call answered ${burstEnd - burstStart} ms after the first was sent\n` +
      `  /healthz, new connection each: during the burst ${stats(fresh!, burstStart, burstEnd)}; while ${CAP} calls are held ${stats(fresh!, burstEnd, Infinity)}\n` +
      `  /healthz, kept-alive connection: during the burst ${stats(keep!, burstStart, burstEnd)}; while ${CAP} calls are held ${stats(keep!, burstEnd, Infinity)}; ${keep!.resets} keep-alive resets\n` +
      `  gateway RSS ${(before.rss / MB).toFixed(0)} MB before, peak ${(peakRss / MB).toFixed(0)} MB, ${(after.rss / MB).toFixed(0)} MB after; open fds ${before.fds} before, ${peak.fds} with the calls held, ${after.fds} after`,
  );

  // Every health probe was answered 200, on a new connection and on a kept-alive one.
  for (const r of [fresh!, keep!]) {
    expect(r.probes.length).toBeGreaterThan(0);
    expect(r.probes.filter((p) => p.status !== 200)).toEqual([]);
  }
  // Bounded: the burst costs tens of MB (about 11 KB a connection), not a copy per call.
  expect(peakRss - before.rss).toBeLessThan(256 * MB);

  await gw.stop();
  expect((await gw.exited).code).toBe(0);
}, 400_000);
