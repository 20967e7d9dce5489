/**
 * An egress HTTP proxy started by a test: answers CONNECT by opening a tunnel to the
 * named host and port, and records every target asked for, so a test can tell that a
 * call went through it (and which one went around it).
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface EgressProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `host:port` of every CONNECT, in order. */
  readonly targets: string[];
  close(): Promise<void>;
}

export async function startEgressProxy(): Promise<EgressProxy> {
  const targets: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => {
    // Only tunnels: a plain proxied request is not what the gateway sends.
    res.statusCode = 405;
    res.end();
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    targets.push(target);
    const [host, port] = splitTarget(target);
    const upstream = connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    sockets.add(client);
    upstream.on('close', () => sockets.delete(upstream));
    client.on('close', () => sockets.delete(client));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    targets,
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function splitTarget(target: string): [string, number] {
  const i = target.lastIndexOf(':');
  return [target.slice(0, i).replace(/^\[|\]$/g, ''), Number(target.slice(i + 1))];
}
