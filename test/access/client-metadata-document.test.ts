/**
 * Client ID metadata documents fetched from real HTTP servers on 127.0.0.1 (security.md,
 * "Client ID metadata documents"). Each server counts the connections and requests it
 * receives, so a refusal "without fetching" is proven by a count of zero, and a hostile
 * server (huge, slow, redirecting) records whether the gateway hung up on it.
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import {
  createServer as createNetServer,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net';
import { createServer as createHttpsServer } from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { skipBecause } from '../helpers/skip-reason.js';
import { localhostCertificate } from '../helpers/localhost-certificate.js';
import {
  createClientMetadataFetcher,
  type ClientMetadataFetcherOptions,
  type ClosableClientMetadataFetcher,
} from '../../src/access/sign-in/client-metadata-document.js';

interface DocumentHost {
  readonly origin: string;
  readonly port: number;
  readonly requests: IncomingMessage[];
  connections: number;
  /** Resolves when a socket the server accepted has closed (the fetcher hung up). */
  readonly socketClosed: Promise<void>;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function track(server: Server): Pick<DocumentHost, 'socketClosed' | 'close'> & {
  counter: { connections: number };
} {
  const sockets = new Set<Socket>();
  const counter = { connections: 0 };
  let closed!: () => void;
  const socketClosed = new Promise<void>((resolve) => (closed = resolve));
  server.on('connection', (socket: Socket) => {
    counter.connections++;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      closed();
    });
  });
  const close = async (): Promise<void> => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { socketClosed, close, counter };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.address() as AddressInfo).port;
}

/** An HTTP server on 127.0.0.1:0 answering with `handler`. */
async function startHost(
  handler: (req: IncomingMessage, res: ServerResponse, host: DocumentHost) => void,
): Promise<DocumentHost> {
  const requests: IncomingMessage[] = [];
  // eslint-disable-next-line prefer-const
  let host: DocumentHost;
  const server = createHttpServer((req, res) => {
    requests.push(req);
    handler(req, res, host);
  });
  const tracked = track(server);
  const port = await listen(server);
  host = {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    get connections() {
      return tracked.counter.connections;
    },
    socketClosed: tracked.socketClosed,
    close: tracked.close,
  };
  cleanups.push(host.close);
  return host;
}

/** The document a well-behaved client serves at the URL it was fetched from. */
function documentFor(req: IncomingMessage, over: Record<string, unknown> = {}): string {
  return JSON.stringify({
    client_id: `http://${req.headers.host}${req.url}`,
    client_name: 'Test Client',
    redirect_uris: ['http://127.0.0.1:33418/callback', 'https://client.example.com/cb'],
    token_endpoint_auth_method: 'none',
    ...over,
  });
}

function serveDocument(over: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(documentFor(req, over));
  };
}

function fetcher(opts: ClientMetadataFetcherOptions = {}): ClosableClientMetadataFetcher {
  const f = createClientMetadataFetcher({ allowLoopbackHttp: true, ...opts });
  cleanups.push(() => f.close());
  return f;
}

async function reasonOf(f: ClosableClientMetadataFetcher, clientId: string): Promise<string> {
  const result = await f.fetch(clientId);
  if (result.ok) throw new Error('expected a refusal, got a client');
  return result.reason;
}

describe('a good client metadata document', () => {
  it('gives the client its name and exact redirect URIs, from one GET asking for JSON', async () => {
    const host = await startHost(serveDocument());
    const clientId = `${host.origin}/oauth/client.json`;
    const result = await fetcher().fetch(clientId);
    expect(result).toEqual({
      ok: true,
      client: {
        clientId,
        kind: 'metadata-document',
        name: 'Test Client',
        redirectUris: ['http://127.0.0.1:33418/callback', 'https://client.example.com/cb'],
      },
    });
    expect(host.requests).toHaveLength(1);
    expect(host.requests[0]!.method).toBe('GET');
    expect(host.requests[0]!.url).toBe('/oauth/client.json');
    expect(host.requests[0]!.headers.accept).toBe('application/json');
  });

  it('is named by its host when it has no client_name', async () => {
    const host = await startHost(serveDocument({ client_name: undefined }));
    const result = await fetcher().fetch(`${host.origin}/c.json`);
    expect(result.ok && result.client.name).toBe(`127.0.0.1:${host.port}`);
  });

  it('is served from the cache on the second fetch, without a second request', async () => {
    const host = await startHost(serveDocument());
    const f = fetcher();
    const clientId = `${host.origin}/c.json`;
    const first = await f.fetch(clientId);
    const second = await f.fetch(clientId);
    expect(first.ok).toBe(true);
    expect(second).toEqual(first);
    expect(host.requests).toHaveLength(1);
  });

  it('fetched by many sign-ins at once costs one request', async () => {
    // Every call below is made before the first request can be answered.
    const host = await startHost(serveDocument());
    const f = fetcher();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => f.fetch(`${host.origin}/c.json`)),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(host.requests).toHaveLength(1);
  });

  it('is fetched again once its max-age has passed, not before', async () => {
    let now = 1_000_000;
    const host = await startHost(serveDocument({}, { 'cache-control': 'public, max-age=120' }));
    const f = fetcher({ now: () => now });
    const clientId = `${host.origin}/c.json`;
    await f.fetch(clientId);
    now += 119_000;
    await f.fetch(clientId);
    expect(host.requests).toHaveLength(1);
    now += 2_000;
    expect((await f.fetch(clientId)).ok).toBe(true);
    expect(host.requests).toHaveLength(2);
  });

  it('is kept at least a minute even with max-age=0', async () => {
    let now = 1_000_000;
    const host = await startHost(serveDocument({}, { 'cache-control': 'max-age=0' }));
    const f = fetcher({ now: () => now });
    const clientId = `${host.origin}/c.json`;
    await f.fetch(clientId);
    now += 59_000;
    await f.fetch(clientId);
    expect(host.requests).toHaveLength(1);
    now += 2_000;
    await f.fetch(clientId);
    expect(host.requests).toHaveLength(2);
  });

  it('with Cache-Control no-store is fetched on every sign-in', async () => {
    const host = await startHost(serveDocument({}, { 'cache-control': 'no-store' }));
    const f = fetcher();
    const clientId = `${host.origin}/c.json`;
    await f.fetch(clientId);
    await f.fetch(clientId);
    expect(host.requests).toHaveLength(2);
  });

  it('keeps only the newest entries when the cache is full', async () => {
    const host = await startHost(serveDocument());
    const f = fetcher({ maxEntries: 2 });
    for (const name of ['a', 'b', 'c']) await f.fetch(`${host.origin}/${name}.json`);
    await f.fetch(`${host.origin}/c.json`);
    expect(host.requests).toHaveLength(3);
    await f.fetch(`${host.origin}/a.json`);
    expect(host.requests).toHaveLength(4);
  });
});

describe('a refused document', () => {
  it('is remembered for 30 seconds, so a hostile client cannot make the gateway fetch in a loop', async () => {
    let now = 1_000_000;
    const host = await startHost((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const f = fetcher({ now: () => now });
    const clientId = `${host.origin}/c.json`;
    expect(await reasonOf(f, clientId)).toBe('the client metadata document answered status 404');
    now += 29_000;
    expect(await reasonOf(f, clientId)).toBe('the client metadata document answered status 404');
    expect(host.requests).toHaveLength(1);
    now += 2_000;
    await f.fetch(clientId);
    expect(host.requests).toHaveLength(2);
  });

  it('as 404 never repeats the query of the client id', async () => {
    const host = await startHost((_req, res) => {
      res.writeHead(404);
      res.end();
    });
    const reason = await reasonOf(fetcher(), `${host.origin}/c.json?key=hunter2`);
    expect(reason).toBe('the client metadata document answered status 404');
  });

  it.each([301, 302, 303, 307, 308])(
    'answering a redirect (%d) is refused, and the redirect target receives nothing',
    async (status) => {
      const target = await startHost(serveDocument());
      const host = await startHost((_req, res) => {
        res.writeHead(status, { location: `${target.origin}/c.json` });
        res.end();
      });
      const reason = await reasonOf(fetcher(), `${host.origin}/c.json`);
      expect(reason).toBe(
        `the client metadata document answered a redirect (${status}), which is not followed`,
      );
      expect(host.requests).toHaveLength(1);
      expect(target.connections).toBe(0);
    },
  );

  it.each([
    ['text/html', 'the client metadata document must be served as application/json'],
    ['text/plain', 'the client metadata document must be served as application/json'],
    ['application/jsonp', 'the client metadata document must be served as application/json'],
    [undefined, 'the client metadata document must be served as application/json'],
  ])('served as %s is refused, although its body is a good document', async (type, reason) => {
    const host = await startHost((req, res) => {
      if (type !== undefined) res.setHeader('content-type', type);
      res.end(documentFor(req));
    });
    expect(await reasonOf(fetcher(), `${host.origin}/c.json`)).toBe(reason);
  });

  it('served as application/json with a charset, or as a +json type, is read', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/oauth-client+json']) {
      const host = await startHost(serveDocument({}, { 'content-type': type }));
      expect((await fetcher().fetch(`${host.origin}/c.json`)).ok).toBe(true);
    }
  });

  it('that is gzip-encoded is refused, not inflated', async () => {
    const host = await startHost(serveDocument({}, { 'content-encoding': 'gzip' }));
    expect(await reasonOf(fetcher(), `${host.origin}/c.json`)).toBe(
      'the client metadata document must not be content-encoded',
    );
  });

  it('that is not JSON is refused', async () => {
    const host = await startHost((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"client_id": ');
    });
    expect(await reasonOf(fetcher(), `${host.origin}/c.json`)).toBe(
      'the client metadata document is not valid JSON',
    );
  });

  it('naming another client_id than its URL is refused', async () => {
    const host = await startHost(
      serveDocument({ client_id: 'https://trusted.example.com/c.json' }),
    );
    expect(await reasonOf(fetcher(), `${host.origin}/c.json`)).toBe(
      'client_id in the client metadata document differs from its URL',
    );
  });

  it.each([
    [{ redirect_uris: undefined }, 'redirect_uris must be a non-empty array'],
    [{ redirect_uris: [] }, 'redirect_uris must be a non-empty array'],
    [
      { redirect_uris: ['https://client.example.com/cb', 'http://attacker.example/cb'] },
      'redirect_uris[1] must be https, or http on a loopback host',
    ],
    [
      { redirect_uris: ['https://client.example.com/cb#x'] },
      'redirect_uris[0] must not contain a fragment',
    ],
  ])('with redirect_uris %j is refused', async (over, reason) => {
    const host = await startHost(serveDocument(over));
    expect(await reasonOf(fetcher(), `${host.origin}/c.json`)).toBe(reason);
  });

  it('holding a client_secret is refused without repeating it', async () => {
    const host = await startHost(serveDocument({ client_secret: 'hunter2' }));
    const reason = await reasonOf(fetcher(), `${host.origin}/c.json`);
    expect(reason).toBe('the client metadata document must not contain client_secret');
  });
});

describe('a hostile document host', () => {
  it('declaring a body over 64 KiB is refused before the body is read', async () => {
    const host = await startHost((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': 10 * 1024 * 1024,
      });
      res.write('{');
    });
    const reason = await reasonOf(fetcher(), `${host.origin}/c.json`);
    expect(reason).toBe('the client metadata document is larger than 65536 bytes');
    await host.socketClosed;
  });

  it('sending an endless body is cut at 64 KiB and hung up on', async () => {
    const limit = 256 * 1024 * 1024;
    let written = 0;
    const host = await startHost((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const pump = (): void => {
        while (written < limit && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      res.write('[');
      pump();
    });
    const reason = await reasonOf(fetcher(), `${host.origin}/c.json`);
    expect(reason).toBe('the client metadata document is larger than 65536 bytes');
    await host.socketClosed;
    // The fetcher hung up: the server wrote what the socket buffers held, not the 256 MiB.
    expect(written).toBeLessThan(limit);
  });

  it('that never answers is given up on at the time bound', async () => {
    const host = await startHost(() => {
      /* holds the request */
    });
    const reason = await reasonOf(fetcher({ timeoutMs: 300 }), `${host.origin}/c.json`);
    expect(reason).toBe('the client metadata document did not arrive within 300 ms');
    await host.socketClosed;
  });

  it('trickling its body a byte at a time is given up on at the time bound', async () => {
    let timer: NodeJS.Timeout | undefined;
    const host = await startHost((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const body = documentFor(req);
      let i = 0;
      timer = setInterval(() => {
        if (res.destroyed || i >= body.length) return clearInterval(timer);
        res.write(body[i++]!);
      }, 50);
    });
    cleanups.push(async () => clearInterval(timer));
    const reason = await reasonOf(fetcher({ timeoutMs: 300 }), `${host.origin}/c.json`);
    expect(reason).toBe('the client metadata document did not arrive within 300 ms');
    await host.socketClosed;
  });

  it('trickling its headers a byte at a time is given up on at the time bound', async () => {
    let timer: NodeJS.Timeout | undefined;
    const server = createNetServer((socket) => {
      const head =
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Padding: ' + 'x'.repeat(500);
      let i = 0;
      socket.on('error', () => {});
      timer = setInterval(() => {
        if (socket.destroyed || i >= head.length) return clearInterval(timer);
        socket.write(head[i++]!);
      }, 50);
    });
    const tracked = track(server);
    const port = await listen(server);
    cleanups.push(async () => clearInterval(timer), tracked.close);
    const reason = await reasonOf(fetcher({ timeoutMs: 300 }), `http://127.0.0.1:${port}/c.json`);
    expect(reason).toBe('the client metadata document did not arrive within 300 ms');
    expect(tracked.counter.connections).toBe(1);
    await tracked.socketClosed;
  });
});

describe('the addresses a fetch may reach', () => {
  it('refuses a loopback address by default, and no connection reaches it', async () => {
    const host = await startHost(serveDocument());
    const f = createClientMetadataFetcher();
    cleanups.push(() => f.close());
    expect(await reasonOf(f, `https://127.0.0.1:${host.port}/c.json`)).toBe(
      'client_id names a private, loopback or reserved address',
    );
    expect(await reasonOf(f, `https://[::ffff:127.0.0.1]:${host.port}/c.json`)).toBe(
      'client_id names a private, loopback or reserved address',
    );
    expect(await reasonOf(f, `${host.origin}/c.json`)).toBe('client_id must be an https URL');
    expect(host.connections).toBe(0);
  });

  it('refuses by default a name that resolves to loopback (localhost), at the socket, and no connection reaches it', async () => {
    const host = await startHost(serveDocument());
    const f = createClientMetadataFetcher();
    cleanups.push(() => f.close());
    expect(await reasonOf(f, `https://localhost:${host.port}/c.json`)).toBe(
      'the client metadata host resolves to a private, loopback or reserved address',
    );
    expect(host.connections).toBe(0);
  });

  it('lets the same name through when tests allow loopback, so the refusal above is the lookup', async () => {
    const host = await startHost(serveDocument());
    const result = await fetcher().fetch(`http://localhost:${host.port}/c.json`);
    expect(result.ok).toBe(true);
    expect(host.requests).toHaveLength(1);
  });
});

describe('over https, as serve fetches', () => {
  const tls = localhostCertificate();

  async function startHttpsHost(): Promise<DocumentHost> {
    const requests: IncomingMessage[] = [];
    const server = createHttpsServer({ key: tls!.key, cert: tls!.cert }, (req, res) => {
      requests.push(req);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          client_id: `https://${req.headers.host}${req.url}`,
          client_name: 'TLS Client',
          redirect_uris: ['http://127.0.0.1:33418/callback'],
        }),
      );
    });
    const tracked = track(server);
    const port = await listen(server);
    const host: DocumentHost = {
      origin: `https://localhost:${port}`,
      port,
      requests,
      get connections() {
        return tracked.counter.connections;
      },
      socketClosed: tracked.socketClosed,
      close: tracked.close,
    };
    cleanups.push(host.close);
    return host;
  }

  it.skipIf(skipBecause(tls === undefined, 'the openssl CLI is needed to make a test certificate'))(
    'reads a document from a host whose certificate it trusts, through the guarded lookup',
    async () => {
      const host = await startHttpsHost();
      const result = await fetcher({ trustedCertificates: tls!.cert }).fetch(
        `${host.origin}/c.json`,
      );
      expect(result.ok && result.client.name).toBe('TLS Client');
      expect(host.requests).toHaveLength(1);
    },
  );

  it.skipIf(skipBecause(tls === undefined, 'the openssl CLI is needed to make a test certificate'))(
    'refuses a host whose certificate it does not trust',
    async () => {
      const host = await startHttpsHost();
      const reason = await reasonOf(fetcher(), `${host.origin}/c.json`);
      expect(reason).toBe('the client metadata document could not be fetched');
      expect(host.requests).toHaveLength(0);
    },
  );

  it.skipIf(skipBecause(tls === undefined, 'the openssl CLI is needed to make a test certificate'))(
    'refuses the same trusted host by default, since it is loopback, with no connection made',
    async () => {
      const host = await startHttpsHost();
      const f = createClientMetadataFetcher({ trustedCertificates: tls!.cert });
      cleanups.push(() => f.close());
      expect(await reasonOf(f, `${host.origin}/c.json`)).toBe(
        'the client metadata host resolves to a private, loopback or reserved address',
      );
      expect(host.connections).toBe(0);
    },
  );
});
