/**
 * Drain (issue 11, security.md "Process"): SIGTERM to the real CLI while 200 slow
 * calls are in flight. Readiness fails and stays failed, a new connection is refused
 * or answered 503, all 200 calls complete with their answers, and the process exits 0.
 *
 * Outcomes only (issue 14): the upstream holds the calls until the test has checked
 * readiness and the late call, so every check happens while the 200 are in flight,
 * however slow the machine. How long each step took is printed, not asserted.
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHeldUpstream, type HeldUpstream } from '../helpers/upstream.js';
import { serveProcess, type ServeProcess } from './serve-process.js';
import { sleep } from '../../bench/lib/sleep.mjs';

const CALLS = 200;
/** Longer than the checks take on any machine: the held calls must outlive them. */
const GRACE_MS = 60_000;

let upstream: HeldUpstream;
let gw: ServeProcess | undefined;

beforeAll(async () => {
  upstream = await startHeldUpstream();
});

afterAll(async () => {
  upstream?.release();
  await gw?.stop();
  await upstream?.close();
});

/** The deadline outlasts the test on any machine: the held calls end when the test releases them. */
function spec(baseUrl: string): string {
  return `
wrap "drain" version="1.0.0"
base-url "${baseUrl}"
timeout "5m"
can get slow {
    describe "A slow answer."
    path "/slow/{n}"
}
`;
}

/** GET on a connection of its own: the status, or 'refused' when no connection could be made. */
async function freshGet(url: string): Promise<number | 'refused'> {
  const agent = new Agent({ connections: 1, pipelining: 0 });
  try {
    const res = await request(url, {
      dispatcher: agent,
      headersTimeout: 2_000,
      bodyTimeout: 2_000,
    });
    await res.body.text();
    return res.statusCode;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
      return 'refused';
    throw err;
  } finally {
    await agent.destroy();
  }
}

interface Answer {
  status: number;
  body: string;
  connection: unknown;
}

function call(agent: Agent, url: string, n: number): Promise<Answer> {
  const mcp = n % 2 === 1;
  return request(mcp ? `${url}/mcp` : `${url}/api/get_slow`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(
      mcp
        ? {
            jsonrpc: '2.0',
            id: n,
            method: 'tools/call',
            params: { name: 'get_slow', arguments: { n: String(n) } },
          }
        : { n: String(n) },
    ),
  }).then(async (res) => ({
    status: res.statusCode,
    body: await res.body.text(),
    connection: res.headers.connection,
  }));
}

it('SIGTERM with 200 calls in flight: not ready from then on, new connections refused, all 200 answered, exit 0', async () => {
  gw = await serveProcess(spec(upstream.url), ['--grace', `${GRACE_MS / 1000}s`]);
  const url = gw.url;
  expect(await freshGet(`${url}/readyz`)).toBe(200);

  const agent = new Agent({ connections: CALLS + 10 });
  const calls = Array.from({ length: CALLS }, (_, n) => call(agent, url, n));
  // Every call has reached the upstream: 200 in flight inside the gateway.
  while (upstream.requests.length < CALLS) await sleep(20);

  const signalled = Date.now();
  gw.child.kill('SIGTERM');

  // Readiness fails once the signal is handled (the calls are still held), and from
  // then on never succeeds again.
  const probes: { at: number; status: number | 'refused' }[] = [];
  do probes.push({ at: Date.now() - signalled, status: await freshGet(`${url}/readyz`) });
  while (probes.at(-1)!.status === 200);
  const firstFail = probes.at(-1)!;
  expect(gw.output()).toContain('"msg":"draining: readiness fails, in-flight calls finish"');
  expect(gw.output()).toContain(`"inFlight":${CALLS}`);
  for (let i = 0; i < 5; i++) expect([503, 'refused']).toContain(await freshGet(`${url}/readyz`));

  // A new connection with a new call: refused, or 503.
  const fresh = new Agent({ connections: 1 });
  const late = await call(fresh, url, 999).then(
    (r) => r.status,
    (err: { code?: string }) => err.code,
  );
  await fresh.destroy();
  expect(['ECONNREFUSED', 503]).toContain(late);
  expect(upstream.requests).toHaveLength(CALLS);

  // Released now: all 200 in-flight calls complete, each with its own answer.
  const releasedAt = Date.now();
  upstream.release();
  const results = await Promise.all(calls);
  results.forEach((r, n) => {
    expect(r.status, r.body).toBe(200);
    // Answers given while draining end their connection: no idle keep-alive holds the exit.
    expect(r.connection).toBe('close');
    if (n % 2 === 1) {
      const body = JSON.parse(r.body) as {
        id: number;
        result: { isError: boolean; structuredContent: { result: { n: string } } };
      };
      expect(body.id).toBe(n);
      expect(body.result.isError).toBe(false);
      expect(body.result.structuredContent.result.n).toBe(String(n));
    } else {
      expect((JSON.parse(r.body) as { result: { n: string } }).result.n).toBe(String(n));
    }
  });
  expect(upstream.requests).toHaveLength(CALLS);

  const exit = await gw.exited;
  expect(exit.code).toBe(0);
  expect(gw.output()).toContain('"msg":"stopped"');
  await agent.close();
  console.log(
    `drain: readiness failed ${firstFail!.at} ms after SIGTERM (${String(firstFail!.status)}); ` +
      `a new call got ${String(late)}; ${CALLS} in-flight calls answered 200; exit 0 ${exit.at - signalled} ms after the signal, ` +
      `${exit.at - releasedAt} ms after the upstream released the calls (grace ${GRACE_MS} ms)`,
  );
}, 120_000);
