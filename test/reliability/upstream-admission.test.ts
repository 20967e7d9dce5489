/**
 * Admission at the upstream (issue 14, "Overload answered at the door"): more calls
 * than a small upstream pool can serve within their deadline, to the real CLI. The
 * calls that cannot be served in time are refused at once with 503 OVERLOADED and
 * Retry-After, never left to wait out their deadline in the pool's queue (504). The
 * assertions are outcomes only: every call answered exactly once, each 200 or 503,
 * no 504, shedding happened, the upstream never saw more calls at once than the pool
 * has connections, and the process lived.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { burstOfCalls, type BurstAnswer as Answer } from '../helpers/call-burst.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { serveProcess, type ServeProcess } from './serve-process.js';
import { sleep } from '../../bench/lib/sleep.mjs';

const CONNECTIONS = 3;
const UPSTREAM_MS = 250;
/** Enough calls that the pool can serve only a fraction of them within the deadline. */
const CALLS = 150;

let upstream: Upstream;
let gw: ServeProcess | undefined;
let concurrent = 0;
let mostConcurrent = 0;

beforeAll(async () => {
  upstream = await startUpstream(async (req, res) => {
    concurrent += 1;
    mostConcurrent = Math.max(mostConcurrent, concurrent);
    await sleep(UPSTREAM_MS);
    concurrent -= 1;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ n: req.path.split('/').pop() }));
  });
});

afterAll(async () => {
  await gw?.stop();
  await upstream?.close();
});

function spec(baseUrl: string): string {
  return `
wrap "admission" version="1.0.0"
base-url "${baseUrl}" connections=${CONNECTIONS}
timeout "2s"
can get slow {
    describe "A slow answer."
    path "/slow/{n}"
}
`;
}

const burst = (url: string, from: number, count: number): Promise<Answer[]> =>
  burstOfCalls(url, { from, count, timeoutMs: 30_000, spareConnections: 10 });

function expectShedAtTheDoor(answers: readonly Answer[], count: number): void {
  expect(answers).toHaveLength(count);
  const other = answers.filter((a) => a.status !== 200 && a.status !== 503);
  expect(other, JSON.stringify(other.slice(0, 5))).toEqual([]);
  const ok = answers.filter((a) => a.status === 200);
  const shed = answers.filter((a) => a.status === 503);
  expect(shed.length).toBeGreaterThan(0);
  expect(ok.length).toBeGreaterThan(0);
  for (const a of ok) expect(a.echoed).toBe(String(a.n));
  for (const a of shed) {
    expect(a.code).toBe('OVERLOADED');
    expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
  }
}

it('answers calls a small upstream pool cannot serve in time with 503 and Retry-After at once, never 504', async () => {
  gw = await serveProcess(spec(upstream.url));

  // Cold: nothing measured yet, so at most one queue of `connections` waits.
  const cold = await burst(gw.url, 0, CALLS);
  expectShedAtTheDoor(cold, CALLS);
  // Warm: the gateway now knows the service time and queues what it can serve in time.
  const warm = await burst(gw.url, CALLS, CALLS);
  expectShedAtTheDoor(warm, CALLS);
  const tally = (a: readonly Answer[]): string =>
    `${a.filter((x) => x.status === 200).length} × 200, ${a.filter((x) => x.status === 503).length} × 503`;
  console.log(
    `upstream admission: ${CALLS} calls, ${CONNECTIONS} connections, upstream ${UPSTREAM_MS} ms, deadline 2 s: cold ${tally(cold)}; warm ${tally(warm)}`,
  );

  // Only admitted calls went out, each once, and never more at once than the pool holds.
  const admitted = [...cold, ...warm].filter((a) => a.status === 200).length;
  expect(upstream.requests).toHaveLength(admitted);
  expect(new Set(upstream.requests.map((r) => r.path)).size).toBe(admitted);
  expect(mostConcurrent).toBeLessThanOrEqual(CONNECTIONS);

  // The process lived and still serves.
  const health = await request(`${gw.url}/healthz`);
  await health.body.text();
  expect(health.statusCode).toBe(200);
  const after = await burst(gw.url, 2 * CALLS, 1);
  expect(after[0]).toMatchObject({ status: 200, echoed: String(2 * CALLS) });
  await gw.stop();
  expect((await gw.exited).code).toBe(0);
}, 180_000);
