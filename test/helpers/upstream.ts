/**
 * A real upstream HTTP server on 127.0.0.1:0 that records every request it receives
 * (method, path, raw query, headers, body) and answers with a programmable handler;
 * and one that holds every request until the test releases it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  /** Path and query exactly as received. */
  readonly url: string;
  readonly path: string;
  readonly query: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export type UpstreamHandler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface Upstream {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Replace the answer for the next requests. */
  handle(handler: UpstreamHandler): void;
  close(): Promise<void>;
}

export const echoJson: UpstreamHandler = (req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ ok: true, method: req.method, path: req.path }));
};

/** The same small answer to every request, for tests that only count what reached the upstream. */
export const okJson: UpstreamHandler = (_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end('{"ok":true}');
};

/** Answers every request with 200 and `body(request)` as JSON. */
export function answerJson(body: (req: RecordedRequest) => unknown): UpstreamHandler {
  return (req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(body(req)));
  };
}

export async function startUpstream(handler: UpstreamHandler = echoJson): Promise<Upstream> {
  const requests: RecordedRequest[] = [];
  let current = handler;
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      const q = url.indexOf('?');
      const rec: RecordedRequest = {
        method: req.method ?? '',
        url,
        path: q < 0 ? url : url.slice(0, q),
        query: q < 0 ? '' : url.slice(q + 1),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(rec);
      void Promise.resolve(current(rec, res)).catch(() => res.destroy());
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(h) {
      current = h;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export interface HeldUpstream extends Upstream {
  /** Answers every held request, and every later one at once. */
  release(): void;
}

/**
 * An upstream that holds every request until `release()`, then answers
 * `{ "n": <last path segment> }`: the reliability tests check what the gateway does while
 * its calls are in flight, and holding them (not sleeping) keeps them in flight however
 * slow the machine.
 */
export async function startHeldUpstream(): Promise<HeldUpstream> {
  let release: () => void = () => undefined;
  const released = new Promise<void>((r) => (release = r));
  const upstream = await startUpstream(async (req, res) => {
    await released;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ n: req.path.split('/').pop() }));
  });
  return Object.assign(upstream, { release });
}
