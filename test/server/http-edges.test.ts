/**
 * The edges of the HTTP server, over real sockets: every answer in the catalogue's
 * shape (unknown paths, wrong methods, node's own refusals), a client that goes away
 * mid-upload, and slow-header sockets closed at the header timeout.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/engine/error-catalogue.js';
import type { TestGateway } from '../helpers/gateway.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const API_KEY = 'edges-key-Vb6Nq1Ls4Kw9';

let gw: TestGateway;

useGatewayOnUpstream(
  (url) => `wrap "edges" version="1.0.0"
base-url "${url}/v1"
access {
    api-key env="EDGE_KEYS" scopes="read"
}
can list things {
    path "/things"
    scope "read"
}
`,
  {
    answer: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    },
    env: { EDGE_KEYS: API_KEY },
  },
  (s) => ({ gw } = s),
);

interface RawAnswer {
  readonly status: number;
  readonly head: string;
  readonly body: string;
  /** Chunks not yet written when the server closed the connection. */
  readonly unsent: number;
}

/**
 * Writes `chunks` on a raw socket, one every `everyMs` (all at once when 0), and resolves
 * once the server has closed it (the client never does), with what came back.
 */
function raw(chunks: readonly string[], everyMs = 0): Promise<RawAnswer> {
  const { hostname, port } = new URL(gw.url);
  return new Promise((resolve, reject) => {
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    let i = 0;
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      if (everyMs === 0) for (; i < chunks.length; i++) socket.write(chunks[i]!);
      else {
        timer = setInterval(() => {
          if (i < chunks.length && !socket.destroyed) socket.write(chunks[i++]!);
        }, everyMs);
      }
    });
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (received += c));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // A reset after the answer still counts as the server closing.
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
    socket.on('close', () => {
      clearInterval(timer);
      const [head = '', body = ''] = received.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1] ?? 0);
      resolve({ status, head, body, unsent: chunks.length - i });
    });
  });
}

function expectCatalogueShape(body: string, code: string): void {
  const parsed = JSON.parse(body) as { error: { code: string; message: string } };
  expect(Object.keys(ERROR_CATALOGUE)).toContain(parsed.error.code);
  expect(parsed.error.code).toBe(code);
  expect(parsed.error.message.length).toBeGreaterThan(0);
  expect(body).not.toMatch(/FST_ERR|"statusCode":/);
}

describe('unknown paths and wrong methods', () => {
  it.each([
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
    '/no/such/page',
    '/api/%zz',
  ])('answer %s with 404 NOT_FOUND in the catalogue shape, without credentials', async (path) => {
    const res = await fetch(`${gw.url}${path}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expectCatalogueShape(await res.text(), 'NOT_FOUND');
  });

  it.each(['list_things', 'no_such_tool'])(
    'answer GET /api/%s with 405 METHOD_NOT_ALLOWED and Allow: POST, telling no tool apart',
    async (tool) => {
      const res = await fetch(`${gw.url}/api/${tool}`);
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expectCatalogueShape(await res.text(), 'METHOD_NOT_ALLOWED');
    },
  );

  it('keep GET /api listing the tools', async () => {
    const res = await fetch(`${gw.url}/api`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ tools: [{ name: 'list_things' }] });
  });

  it('keep an unknown tool called with POST an UNKNOWN_TOOL', async () => {
    const res = await fetch(`${gw.url}/api/no_such_tool`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(404);
    expectCatalogueShape(await res.text(), 'UNKNOWN_TOOL');
  });
});

describe("node's own refusals", () => {
  it('answer a request line that is not HTTP with 400 MALFORMED_REQUEST and close the socket', async () => {
    const answer = await raw(['THIS IS NOT HTTP\r\n\r\n']);
    expect(answer.status).toBe(400);
    expectCatalogueShape(answer.body, 'MALFORMED_REQUEST');
  });

  it('answer headers over the size limit with 431 HEADERS_TOO_LARGE and close the socket', async () => {
    const answer = await raw([
      `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(40_000)}\r\n\r\n`,
    ]);
    expect(answer.status).toBe(431);
    expectCatalogueShape(answer.body, 'HEADERS_TOO_LARGE');
  });

  it('answer a broken chunked body with 400 MALFORMED_REQUEST', async () => {
    const answer = await raw([
      'POST /api/list_things HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
        `authorization: Bearer ${API_KEY}\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    ]);
    expect(answer.status).toBe(400);
    expectCatalogueShape(answer.body, 'MALFORMED_REQUEST');
  });

  // Measured with bench/slow-headers.ts: closed 10.8-11.0 s after the first byte (header
  // timeout 10 s, checked every second); 17-39 s before the check interval was set.
  it('close a socket that trickles its headers with 408 REQUEST_TIMEOUT while it is still sending', async () => {
    // Two bytes a second of an endless header: 120 chunks would take a minute to send.
    const slow = ['GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', ...'b'.repeat(119)];
    const answer = await raw(slow, 500);
    expect(answer.status).toBe(408);
    expect(answer.unsent).toBeGreaterThan(0);
    expectCatalogueShape(answer.body, 'REQUEST_TIMEOUT');
  }, 70_000);
});

describe('a client that goes away mid-upload', () => {
  it('is logged once, at info, without a stack trace or an error line', async () => {
    const requestId = 'abort-mid-upload-1';
    const { hostname, port } = new URL(gw.url);
    // The gateway has the request (head read, body under way); then the client is gone.
    const started = new Promise<void>((resolve) => gw.app.server.once('request', () => resolve()));
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(
        'POST /api/list_things HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n' +
          `authorization: Bearer ${API_KEY}\r\nx-request-id: ${requestId}\r\n` +
          'content-length: 100000\r\n\r\n{"size": ',
      );
    });
    socket.on('error', () => undefined);
    await started;
    socket.destroy();
    const linesOf = (): Record<string, unknown>[] =>
      gw
        .logs()
        .split('\n')
        .filter((l) => l.includes(requestId))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    // The line is written when the gateway notices the close; then give a second one time to show.
    for (let i = 0; i < 250 && linesOf().length === 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    const lines = linesOf();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, reqId: requestId });
    expect(JSON.stringify(lines[0])).not.toContain('stack');
    expect(gw.logs()).not.toContain('"unhandled error"');
    expect(gw.logs()).not.toMatch(/"level":50/);
  });
});
