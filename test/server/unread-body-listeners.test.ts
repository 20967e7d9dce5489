import { createServer, request, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drainUnreadBody } from '../../src/server/unread-body.js';

let server: Server | undefined;
afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

function get(port: number, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('draining an unread body', () => {
  it('leaves no listener behind on a kept-alive socket after each bodyless request', async () => {
    const sockets = new Set<Socket>();
    const counts: number[] = [];
    server = createServer((req, res) => {
      sockets.add(req.socket);
      counts.push(req.socket.listenerCount('close'));
      res.end('ok');
      // The gateway does this after every answer whose request it did not read.
      drainUnreadBody(req);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 25; i++) await get(port, agent);
    agent.destroy();
    expect(sockets.size).toBe(1);
    // The listeners node itself keeps are the same for the 2nd request as for the 25th.
    expect(counts[24]).toBe(counts[1]);
  });
});
