/**
 * What happens to an event-stream answer's connection after the event that answered us
 * (http-post.ts): a stream that ends by itself keeps its keep-alive connection for the
 * next POST; one left open is cut after a short grace. A real node:http upstream on
 * 127.0.0.1, the channel's own POST.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { postMessage } from '../../src/mcp-upstream/http-post.js';

let server: Server | undefined;
let agent: Agent | undefined;

afterEach(async () => {
  await agent?.close();
  server?.closeAllConnections();
  server?.close();
  server = agent = undefined;
});

/** An upstream answering each POST with one event, then ending the stream or not. */
async function upstream(end: boolean): Promise<{
  origin: string;
  connections: () => number;
  answered: ServerResponse[];
}> {
  let connections = 0;
  const answered: ServerResponse[] = [];
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: {} })}\n\n`);
      answered.push(res);
      if (end) res.end();
    });
  });
  server.on('connection', () => (connections += 1));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, connections: () => connections, answered };
}

/** Waits, turn by turn of the event loop, until `done` says so (the test's timeout bounds it). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setImmediate(r));
}

function post(origin: string, id: number) {
  agent ??= new Agent();
  return postMessage(agent, {
    origin,
    path: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' }),
    id,
    readCap: 64 * 1024,
    timeoutMs: 30_000,
  });
}

describe('an event-stream answer', () => {
  it('that ends after its answer leaves the connection for the next POST', async () => {
    const up = await upstream(true);
    for (const id of [1, 2, 3]) {
      const a = await post(up.origin, id);
      expect(a).toMatchObject({ kind: 'answer', status: 200, parsed: { id } });
      // The answer is taken at its event; the stream's end may come in a later read, and
      // only then is the connection free for the next POST.
      await until(() => {
        // An Agent's per-origin stats are a Pool's (free and connected connections).
        const s = agent!.stats[up.origin] as { free: number; connected: number } | undefined;
        return s !== undefined && s.free === s.connected;
      });
    }
    expect(up.connections()).toBe(1);
    expect(up.answered.every((res) => res.writableFinished)).toBe(true);
  });

  it('that stays open after its answer is cut by the gateway', async () => {
    const up = await upstream(false);
    const a = await post(up.origin, 1);
    expect(a).toMatchObject({ kind: 'answer', status: 200, parsed: { id: 1 } });
    // The answer was taken at once; the open stream is then cut from our side.
    await once(up.answered[0]!, 'close');
    expect(up.answered[0]!.writableFinished).toBe(false);
  });
});
