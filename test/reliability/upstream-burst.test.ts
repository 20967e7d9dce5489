/**
 * A burst at a slow upstream (issue 37, item 13): 2,000 concurrent calls, the default
 * 256 connections per origin, an upstream in a process of its own that answers each
 * request after 1 s, a 3 s deadline. Every call is either served (200) or refused at
 * the door (503 OVERLOADED with Retry-After); none waits out its deadline (504), even
 * when the gateway's event loop is so busy taking the burst that a request reaches the
 * wire seconds after its call got a connection. Outcomes only: no wall-clock bound.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveProcess, type ServeProcess } from './serve-process.js';
import { sleep } from '../../bench/lib/sleep.mjs';
import { busyMachine } from '../helpers/busy-machine.js';
import { burstOfCalls, type BurstAnswer as Answer } from '../helpers/call-burst.js';

const CALLS = 2_000;
const UPSTREAM_MS = 1_000;

let upstream: { url: string; child: ChildProcess; seen(): Promise<number> };
let gw: ServeProcess | undefined;

/**
 * An upstream that answers every request after UPSTREAM_MS, in a process of its own:
 * in the test's process, the load generator's event loop would make it slower than it
 * says. It counts the requests it saw (printed on SIGUSR2's cue: a line on stdout).
 */
async function slowUpstreamProcess(): Promise<typeof upstream> {
  const code = `
    let seen = 0;
    const server = require('node:http').createServer((req, res) => {
      seen += 1;
      req.resume();
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ n: req.url.split('/').pop() }));
      }, ${UPSTREAM_MS});
    });
    process.on('SIGUSR2', () => console.log('seen ' + seen));
    server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));
  `;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  while (!/port \d+\n/.test(out)) await sleep(10);
  const port = /port (\d+)/.exec(out)![1];
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    async seen() {
      const before = out.length;
      child.kill('SIGUSR2');
      while (!/seen \d+\n/.test(out.slice(before))) await sleep(10);
      return Number(/seen (\d+)/.exec(out.slice(before))![1]);
    },
  };
}

beforeAll(async () => {
  upstream = await slowUpstreamProcess();
});

afterAll(async () => {
  await gw?.stop();
  if (upstream) {
    const done = new Promise((r) => upstream.child.once('exit', r));
    upstream.child.kill('SIGTERM');
    await done;
  }
});

function spec(baseUrl: string): string {
  return `
wrap "burst" version="1.0.0"
base-url "${baseUrl}"
timeout "3s"
can get slow {
    describe "A slow answer."
    path "/slow/{n}"
}
`;
}

const burst = (url: string, from: number): Promise<Answer[]> =>
  burstOfCalls(url, { from, count: CALLS, timeoutMs: 120_000, spareConnections: 100 });

const tally = (answers: readonly Answer[]): string => {
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(String(a.status), (counts.get(String(a.status)) ?? 0) + 1);
  return [...counts].map(([s, c]) => `${c} × ${s}`).join(', ');
};

it('serves or sheds at the door every one of 2,000 concurrent calls to a slow upstream, none waits out its deadline', async () => {
  gw = await serveProcess(spec(upstream.url), ['--max-in-flight', '4096']);
  const rounds: Answer[][] = [];
  // Cold (nothing measured yet, connections still to open) on a machine whose cores are
  // busy, so that the gateway takes the burst slower than the upstream answers; then
  // warm (the service time known, the connections open).
  const quiet = busyMachine(60_000);
  try {
    rounds.push(await burst(gw.url, 0));
  } finally {
    await quiet();
  }
  rounds.push(await burst(gw.url, CALLS));
  console.log(`upstream burst: cold ${tally(rounds[0]!)}; warm ${tally(rounds[1]!)}`);

  for (const answers of rounds) {
    expect(answers).toHaveLength(CALLS);
    const other = answers.filter((a) => a.status !== 200 && a.status !== 503);
    expect(other.length, `${tally(answers)}: ${JSON.stringify(other.slice(0, 3))}`).toBe(0);
    for (const a of answers.filter((x) => x.status === 200)) expect(a.echoed).toBe(String(a.n));
    for (const a of answers.filter((x) => x.status === 503)) {
      expect(a.code).toBe('OVERLOADED');
      expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
    }
  }
  // Shedding happened, and every call that went out was served.
  const all = rounds.flat();
  const ok = all.filter((a) => a.status === 200).length;
  expect(all.filter((a) => a.status === 503).length).toBeGreaterThan(0);
  expect(ok).toBeGreaterThan(0);
  expect(await upstream.seen()).toBe(ok);

  await gw.stop();
  expect((await gw.exited).code).toBe(0);
}, 300_000);
