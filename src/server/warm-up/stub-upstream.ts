/**
 * The warm-up's upstream: an HTTP server on 127.0.0.1 (a port the kernel picks) that
 * answers every request with canned JSON, as a small REST API would. The warm-up never
 * reaches a real upstream.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const ITEM = JSON.stringify({
  id: 42,
  name: 'widget',
  status: 'open',
  tags: ['a', 'b'],
  owner: { name: 'Ada', email: 'ada@example.com' },
  updatedAt: '2026-01-01T00:00:00Z',
});
const LIST = `[${Array.from({ length: 5 }, () => ITEM).join(',')}]`;

export interface StubUpstream {
  readonly url: string;
  close(): Promise<void>;
}

export async function startStubUpstream(): Promise<StubUpstream> {
  const server: Server = createServer((req, res) => {
    // The body is read to its end, as a real API would, before the answer.
    req.resume();
    req.on('end', () => {
      const created = req.method === 'POST';
      const body = created ? ITEM : req.url?.startsWith('/items?') ? LIST : ITEM;
      res.writeHead(created ? 201 : 200, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // Exclusive: its own port even in a worker of `serve --workers` (warm-up.ts).
    server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
