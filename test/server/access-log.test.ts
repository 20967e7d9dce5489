/**
 * The access line of each request, read from the gateway's own log (written at debug, so
 * every line shows with its level): a passing health or readiness probe is debug, so a
 * kubelet asking every few seconds leaves nothing at info; a call, and a probe that
 * fails, are info.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { GET_THING_GRANT, specHead } from '../helpers/spec-fixtures.js';

/** Nothing is called upstream: port 9 answers nobody. */
const SPEC = `${specHead('probes', 'http://127.0.0.1:9/v1')}\n${GET_THING_GRANT}\n`;

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway(SPEC);
});

afterAll(async () => {
  await gw?.close();
});

/** The access lines (`msg: "request"`) of one request id, once the gateway has written one. */
async function accessLines(requestId: string): Promise<Record<string, unknown>[]> {
  const read = (): Record<string, unknown>[] =>
    gw
      .logs()
      .split('\n')
      .filter((l) => l.includes(`"reqId":"${requestId}"`))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request');
  // The line is written once the answer has gone out: the client may read it first.
  for (let i = 0; i < 250 && read().length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  return read();
}

async function get(path: string, requestId: string): Promise<number> {
  const res = await fetch(`${gw.url}${path}`, { headers: { 'x-request-id': requestId } });
  await res.arrayBuffer();
  return res.status;
}

describe('the access log', () => {
  it('writes a passing /healthz or /readyz probe at debug, never at info', async () => {
    expect(await get('/healthz', 'probe-health-1')).toBe(200);
    expect(await get('/readyz', 'probe-ready-1')).toBe(200);
    expect(await accessLines('probe-health-1')).toEqual([
      expect.objectContaining({ level: 20, path: '/healthz', status: 200 }),
    ]);
    expect(await accessLines('probe-ready-1')).toEqual([
      expect.objectContaining({ level: 20, path: '/readyz', status: 200 }),
    ]);
  });

  it('writes any other request at info', async () => {
    expect(await get('/api', 'listing-1')).toBe(200);
    expect(await accessLines('listing-1')).toEqual([
      expect.objectContaining({ level: 30, method: 'GET', path: '/api', status: 200 }),
    ]);
  });

  // Last: the gateway drains for good.
  it('writes a failing readiness probe (503 while draining) at info', async () => {
    void gw.gateway.drain();
    expect(await get('/readyz', 'probe-ready-503')).toBe(503);
    expect(await accessLines('probe-ready-503')).toEqual([
      expect.objectContaining({ level: 30, path: '/readyz', status: 503 }),
    ]);
  });
});
