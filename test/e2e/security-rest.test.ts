/**
 * security.md over REST, sections "Path parameters", "Query and body" and "Upstream
 * misbehaviour": each case asserts the exact status and code, how many requests the
 * upstream saw, that the credential appears in neither the answer nor the logs, and
 * that the gateway still answers /healthz afterwards.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { echoJson, startUpstream, type Upstream } from '../helpers/upstream.js';
import { specHead } from '../helpers/spec-fixtures.js';

// Holds `/` and `+` so that escaped spellings of it can be tried too.
const TOKEN = 'sk_live_SECRET/tok+9f8e7d6c5b4a';

function securitySpec(baseUrl: string): string {
  return `
${specHead('security', baseUrl, { bearerEnv: 'SEC_TOKEN' })}
header "Accept" "application/json"
timeout "5s"
restrict {
    owner "acme" "acme-labs"
}
can get item {
    describe "One item by id."
    path "/items/{id}"
}
can list things {
    describe "Things of an owner."
    path "/owners/{owner}/things"
    query {
        limit "integer" min=0 max=100
        count "integer" min=0
        tags "string[]" max-items=10
        q "string"
    }
}
can create thing {
    describe "Create a thing."
    path "/things"
    body {
        name "string" required=#true
        amount "integer" min=0
        meta "raw" kind="object"
    }
}
can get slow {
    describe "An answer that must come within 300 ms."
    path "/slow"
    timeout "300ms"
}
can get blob {
    describe "Whatever the upstream sends."
    path "/blob"
}
`;
}

interface Reply {
  status: number;
  text: string;
  json: unknown;
}

interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

const errorOf = (reply: Reply): ErrorBody['error'] => (reply.json as ErrorBody).error;
const fieldsOf = (reply: Reply): string[] =>
  ((errorOf(reply).details ?? []) as { field: string }[]).map((d) => d.field);

let upstream: Upstream;
let gw: TestGateway;
const openResponses = new Set<ServerResponse>();

beforeAll(async () => {
  upstream = await startUpstream();
  gw = await startGateway(securitySpec(`${upstream.url}/prefix`), { env: { SEC_TOKEN: TOKEN } });
});
afterEach(() => {
  for (const res of openResponses) res.destroy();
  openResponses.clear();
  upstream.requests.length = 0;
  upstream.handle(echoJson);
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

// A new connection per request: these cases end upstream exchanges at deadlines, and on a
// loaded machine the client's idle timer can fire after the gateway closed a kept-alive
// socket, so that a POST reused on it fails before the gateway reads it (undici does not
// retry a POST). Nothing here is about connection reuse.
const FRESH = { connection: 'close' };

function call(tool: string, args: unknown): Promise<Reply> {
  return postJson(`${gw.url}/api/${tool}`, args, FRESH);
}

/** The four things every case asserts. */
async function expectOutcome(
  reply: Reply,
  status: number,
  code: string | undefined,
  upstreamRequests: number,
): Promise<void> {
  expect(reply.status, reply.text.slice(0, 500)).toBe(status);
  if (code !== undefined) expect(errorOf(reply).code).toBe(code);
  expect(upstream.requests).toHaveLength(upstreamRequests);
  expect(reply.text).not.toContain(TOKEN);
  expect(gw.logs()).not.toContain(TOKEN);
  const health = await fetch(`${gw.url}/healthz`, { headers: FRESH });
  expect(health.status).toBe(200);
}

/** Resolves when the upstream's side of the call is closed (the socket was freed). */
function closed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed || res.writableFinished) resolve();
    else res.once('close', () => resolve());
  });
}

/** Writes chunks as fast as the reader takes them, up to `limit` bytes, until the reader goes away. */
function pump(res: ServerResponse, chunk: Buffer, limit: number): void {
  let sent = 0;
  const more = (): void => {
    while (!res.destroyed && sent < limit) {
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', more);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  more();
}

const rssMb = (): number => process.memoryUsage().rss / 1e6;

describe('path parameters', () => {
  const rejected: [string, string][] = [
    ['..', 'a parent segment'],
    ['.', 'a current segment'],
    ['%2e%2e', 'an encoded parent segment'],
    ['..%2F', 'an encoded slash after ..'],
    ['a/b', 'a slash'],
    ['a\\b', 'a backslash'],
    ['a?b=1', 'a question mark'],
    ['a#frag', 'a hash'],
    ['%', 'a bare percent'],
    ['100%25', 'a percent escape'],
    ['a\u0001b', 'a control character'],
    ['\u0000', 'NUL alone'],
    ['a\u0000b', 'NUL inside'],
    ['a\r\nHost: evil.example', 'CR/LF'],
    ['a\nb', 'LF'],
    ['\u007f', 'DEL'],
    ['\u0085', 'a C1 control'],
    ['abc\u202egpj.exe', 'a bidi override U+202E'],
    ['a\u2066b', 'a bidi isolate'],
    ['a\u200bb', 'a zero-width space'],
    ['\ud800', 'a lone surrogate'],
    ['', 'the empty string'],
    ['http://169.254.169.254/', 'an absolute URL'],
    ['//evil.example', 'a protocol-relative URL'],
  ];

  for (const [value, what] of rejected) {
    it(`rejects a path value with ${what} before contacting the upstream`, async () => {
      const reply = await call('get_item', { id: value });
      await expectOutcome(reply, 400, 'PATH_VALUE_REJECTED', 0);
      expect(fieldsOf(reply)).toEqual(['/id']);
    });
  }

  it('rejects an over-long path value (over 1024 characters) as invalid arguments', async () => {
    const reply = await call('get_item', { id: 'a'.repeat(1025) });
    await expectOutcome(reply, 400, 'INVALID_ARGUMENTS', 0);
    expect(fieldsOf(reply)).toEqual(['/id']);
  });

  it('rejects a traversal in a restricted argument before the allowlist is consulted', async () => {
    const reply = await call('list_things', { owner: '..' });
    await expectOutcome(reply, 400, 'PATH_VALUE_REJECTED', 0);
  });

  it('keeps authority-looking path values in their own segment on the base-url host', async () => {
    for (const id of ['@evil.example', 'evil.example:80', 'user:pw@169.254.169.254', '...']) {
      upstream.requests.length = 0;
      const reply = await call('get_item', { id });
      await expectOutcome(reply, 200, undefined, 1);
      const seen = upstream.requests[0]!;
      expect(seen.headers.host).toBe(new URL(upstream.url).host);
      expect(seen.path).toBe(`/prefix/items/${encodeURIComponent(id)}`);
    }
  });

  it('never changes the host for URLs given as query or body values', async () => {
    const urls = [
      'http://169.254.169.254/latest/meta-data/',
      '//evil.example/x',
      'file:///etc/passwd',
    ];
    for (const url of urls) {
      upstream.requests.length = 0;
      const q = await call('list_things', { owner: 'acme', q: url, tags: [url] });
      await expectOutcome(q, 200, undefined, 1);
      const seen = upstream.requests[0]!;
      expect(seen.headers.host).toBe(new URL(upstream.url).host);
      expect(seen.path).toBe('/prefix/owners/acme/things');
      const params = new URLSearchParams(seen.query);
      expect(params.getAll('q')).toEqual([url]);
      expect(params.getAll('tags')).toEqual([url]);

      upstream.requests.length = 0;
      const b = await call('create_thing', { name: url, meta: { callback: url } });
      await expectOutcome(b, 200, undefined, 1);
      expect(upstream.requests[0]!.headers.host).toBe(new URL(upstream.url).host);
      expect(upstream.requests[0]!.path).toBe('/prefix/things');
      expect(upstream.requests[0]!.body).toBe(
        JSON.stringify({ name: url, meta: { callback: url } }),
      );
    }
  });
});

describe('query and body', () => {
  const wrongTypes: [string, string, string][] = [
    ['"5" for an integer', '{"owner":"acme","limit":"5"}', '/limit'],
    ['1e400', '{"owner":"acme","count":1e400}', '/count'],
    ['2^53+1', '{"owner":"acme","count": 9007199254740993}', '/count'],
    ['-1 below min', '{"owner":"acme","limit":-1}', '/limit'],
    ['101 above max', '{"owner":"acme","limit":101}', '/limit'],
    ['5.5 for an integer', '{"owner":"acme","limit":5.5}', '/limit'],
    ['true for an integer', '{"owner":"acme","limit":true}', '/limit'],
    // null for an optional field is "not given" (forgiving-inputs.test.ts); inside an array it is a value.
    ['null inside a string array', '{"owner":"acme","tags":["a",null]}', '/tags/1'],
    ['a number for a string', '{"owner":"acme","q":5}', '/q'],
    ['a string for an array', '{"owner":"acme","tags":"a,b"}', '/tags'],
    ['a number inside a string array', '{"owner":"acme","tags":["a",1]}', '/tags/1'],
  ];
  for (const [what, raw, field] of wrongTypes) {
    it(`rejects ${what} with INVALID_ARGUMENTS naming ${field}, without coercion`, async () => {
      const reply = await call('list_things', raw);
      await expectOutcome(reply, 400, 'INVALID_ARGUMENTS', 0);
      expect(fieldsOf(reply)).toContain(field);
    });
  }

  for (const key of ['access_token', 'api_key', '__proto__', 'constructor', 'prototype']) {
    it(`rejects the undeclared key ${key} by name and forwards nothing`, async () => {
      // Raw text: JSON.parse makes __proto__ an own member, as a hostile caller would send it.
      const raw = `{"owner":"acme","${key}":{"polluted":"yes"}}`;
      const reply = await call('list_things', raw);
      await expectOutcome(reply, 400, 'INVALID_ARGUMENTS', 0);
      expect(fieldsOf(reply)).toEqual([`/${key}`]);
      expect(errorOf(reply).message).toContain(`${key} is not an argument of this tool`);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  }

  it('rejects undeclared keys in a body grant too', async () => {
    const reply = await call(
      'create_thing',
      '{"name":"x","__proto__":{"admin":true},"api_key":"k"}',
    );
    await expectOutcome(reply, 400, 'INVALID_ARGUMENTS', 0);
    expect(fieldsOf(reply).sort()).toEqual(['/__proto__', '/api_key']);
  });

  it('keeps a query value holding &, = and # as one encoded value', async () => {
    const reply = await call('list_things', {
      owner: 'acme',
      q: 'a&b=c#d e',
      tags: ['x&limit=1000', '#frag', 'k=v'],
    });
    await expectOutcome(reply, 200, undefined, 1);
    const seen = upstream.requests[0]!;
    expect(seen.query).toBe('tags=x%26limit%3D1000&tags=%23frag&tags=k%3Dv&q=a%26b%3Dc%23d%20e');
    const params = new URLSearchParams(seen.query);
    expect([...params.keys()]).toEqual(['tags', 'tags', 'tags', 'q']);
    expect(params.get('q')).toBe('a&b=c#d e');
    expect(params.get('limit')).toBeNull();
  });

  it('keeps a body value holding &, = and # as one JSON string', async () => {
    const reply = await call('create_thing', { name: 'a&b=c#d', amount: 3 });
    await expectOutcome(reply, 200, undefined, 1);
    expect(upstream.requests[0]!.body).toBe('{"name":"a&b=c#d","amount":3}');
  });

  it('forwards the re-serialized validated object for duplicate keys, never the raw bytes', async () => {
    const raw = '{ "name" : "first", "amount" : 1, "name" : "\\u0041BC", "amount" : 2.0 }';
    const reply = await call('create_thing', raw);
    await expectOutcome(reply, 200, undefined, 1);
    expect(upstream.requests[0]!.body).toBe('{"name":"ABC","amount":2}');
  });

  it('validates the last of duplicate keys, so a bad value cannot hide behind a good one', async () => {
    const reply = await call('create_thing', '{"name":"ok","amount":1,"amount":-5}');
    await expectOutcome(reply, 400, 'INVALID_ARGUMENTS', 0);
    expect(fieldsOf(reply)).toEqual(['/amount']);
  });

  it('rejects 10000 levels of [ given to an object-only raw field', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const reply = await call('create_thing', `{"name":"x","meta":${deep}}`);
    // Refused by the body parser's nesting limit before any validation runs.
    await expectOutcome(reply, 400, 'INVALID_JSON', 0);
    expect((reply.json as { error: { message: string } }).error.message).toContain(
      'nests deeper than 64 levels',
    );
  });

  it('rejects 10000 levels of [ given to a typed array field', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const reply = await call('list_things', `{"owner":"acme","tags":${deep}}`);
    await expectOutcome(reply, 400, 'INVALID_JSON', 0);
  });

  it('rejects a million unclosed [ as invalid JSON', async () => {
    const reply = await call('create_thing', `{"name":"x","meta":${'['.repeat(1_000_000)}`);
    await expectOutcome(reply, 400, 'INVALID_JSON', 0);
  });

  it('rejects 10000 levels of nesting inside a raw object with a 400', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const reply = await call('create_thing', `{"name":"x","meta":{"a":${deep}}}`);
    expect(upstream.requests).toHaveLength(0);
    await expectOutcome(reply, 400, undefined, 0);
  });

  it('rejects a huge array of wrong items with a bounded answer', async () => {
    const raw = JSON.stringify({ owner: 'acme', tags: Array.from({ length: 300_000 }, () => 1) });
    const reply = await call('list_things', raw);
    await expectOutcome(reply, 400, 'INVALID_ARGUMENTS', 0);
    expect(fieldsOf(reply)).toContain('/tags');
    expect(reply.text.length).toBeLessThan(16_384);
  });

  it('rejects an array body over 4 MiB with 413', async () => {
    const raw = JSON.stringify({
      owner: 'acme',
      tags: Array.from({ length: 1_200_000 }, () => 'ab'),
    });
    expect(raw.length).toBeGreaterThan(4 << 20);
    const reply = await call('list_things', raw);
    await expectOutcome(reply, 413, 'PAYLOAD_TOO_LARGE', 0);
  });

  it('denies an owner outside the restrict allowlist with 403 and sends nothing', async () => {
    for (const owner of ['evil', 'ACME', 'acme ', 'acme-labs2']) {
      const reply = await call('list_things', { owner });
      await expectOutcome(reply, 403, 'DENIED_BY_RESTRICT', 0);
      expect(fieldsOf(reply)).toEqual(['/owner']);
    }
  });
});

describe('upstream misbehaviour', () => {
  it('ends a call whose upstream sends no headers at the grant deadline with 504 and frees the socket', async () => {
    let held: ServerResponse | undefined;
    upstream.handle((_req, res) => {
      held = res;
      openResponses.add(res);
    });
    const reply = await call('get_slow', {});
    await expectOutcome(reply, 504, 'UPSTREAM_TIMEOUT', 1);
    expect(errorOf(reply).message).toContain('upstream timeout');
    await closed(held!);
  });

  it('ends a body trickling one byte per 100 ms at the deadline with 504', async () => {
    let held: ServerResponse | undefined;
    upstream.handle((_req, res) => {
      held = res;
      openResponses.add(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const timer = setInterval(() => {
        if (res.destroyed) clearInterval(timer);
        else res.write('1,');
      }, 100);
      res.once('close', () => clearInterval(timer));
    });
    const reply = await call('get_slow', {});
    await expectOutcome(reply, 504, 'UPSTREAM_TIMEOUT', 1);
    await closed(held!);
  });

  it('stops reading an endless JSON body at the read cap with a clear 502', async () => {
    upstream.handle((_req, res) => {
      openResponses.add(res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      pump(
        res,
        Buffer.from('"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",'.repeat(1024)),
        512 << 20,
      );
    });
    const before = rssMb();
    const reply = await call('get_blob', {});
    await expectOutcome(reply, 502, 'UPSTREAM_BAD_RESPONSE', 1);
    expect(errorOf(reply).message).toContain('larger than the read cap');
    expect(rssMb() - before).toBeLessThan(100);
  });

  it('stops reading a huge declared-length JSON body at the read cap with a 502', async () => {
    const size = 64 << 20;
    upstream.handle((_req, res) => {
      openResponses.add(res);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(size) });
      pump(res, Buffer.alloc(64 << 10, 0x20), size);
    });
    const before = rssMb();
    const reply = await call('get_blob', {});
    await expectOutcome(reply, 502, 'UPSTREAM_BAD_RESPONSE', 1);
    expect(errorOf(reply).message).toContain('larger than the read cap');
    expect(rssMb() - before).toBeLessThan(100);
  });

  it('cuts an endless text body at the cap and answers 200 with coverage.truncated', async () => {
    upstream.handle((_req, res) => {
      openResponses.add(res);
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      pump(res, Buffer.from('log line: all is well\n'.repeat(2048)), 512 << 20);
    });
    const before = rssMb();
    const reply = await call('get_blob', {});
    await expectOutcome(reply, 200, undefined, 1);
    const env = reply.json as { coverage: { truncated: boolean }; result: string };
    expect(reply.text.startsWith('{"coverage":{"truncated":true,')).toBe(true);
    expect(env.coverage.truncated).toBe(true);
    expect(env.result.startsWith('log line: all is well\n')).toBe(true);
    expect(env.result).toMatch(/…\[\d+ more characters\]$/);
    expect(Buffer.byteLength(JSON.stringify(env.result))).toBeLessThanOrEqual(262_144);
    expect(rssMb() - before).toBeLessThan(100);
  });

  it('refuses a gzip body it did not ask for with a clear 502', async () => {
    upstream.handle((req, res) => {
      expect(req.headers['accept-encoding']).toBe('identity');
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ ok: true })));
    });
    const reply = await call('get_blob', {});
    await expectOutcome(reply, 502, 'UPSTREAM_BAD_RESPONSE', 1);
    expect(errorOf(reply).message).toContain('gzip-encoded');
  });

  // Compressed before the tests run: 200 MB take seconds on a busy machine, and a pause
  // that long between two calls lets the gateway close the test client's idle keep-alive
  // socket just as the client reuses it ("fetch failed", nothing to do with the bomb).
  let bomb: Buffer;
  beforeAll(() => {
    bomb = gzipSync(Buffer.alloc(200 << 20));
  });

  it('does not inflate a gzip bomb', async () => {
    expect(bomb.length).toBeLessThan(1 << 20);
    upstream.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const before = rssMb();
    const reply = await call('get_blob', {});
    await expectOutcome(reply, 502, 'UPSTREAM_BAD_RESPONSE', 1);
    expect(rssMb() - before).toBeLessThan(100);
  });

  for (const [what, body] of [
    ['truncated JSON', '{"items":[1,2,'],
    ['invalid JSON', 'not json at all'],
    ['an empty object cut after the key', '{"a"'],
  ] as const) {
    it(`answers ${what} under application/json with 502 UPSTREAM_BAD_RESPONSE`, async () => {
      upstream.handle((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      });
      const reply = await call('get_blob', {});
      await expectOutcome(reply, 502, 'UPSTREAM_BAD_RESPONSE', 1);
      expect(errorOf(reply).message).toContain('invalid JSON');
    });
  }

  it('redacts the credential echoed inside invalid JSON', async () => {
    upstream.handle((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"you_sent":"${req.headers.authorization}"`);
    });
    const reply = await call('get_blob', {});
    await expectOutcome(reply, 502, 'UPSTREAM_BAD_RESPONSE', 1);
    expect(errorOf(reply).message).toContain('Bearer [REDACTED]');
  });

  it('returns text/html where JSON was expected as a text result', async () => {
    const html = '<!doctype html><html><body><h1>Service Unavailable</h1></body></html>';
    upstream.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html);
    });
    const reply = await call('get_blob', {});
    await expectOutcome(reply, 200, undefined, 1);
    expect((reply.json as { result: unknown }).result).toBe(html);
  });

  for (const status of [301, 302, 307, 308]) {
    it(`does not follow a ${status} redirect to another origin: 502 UPSTREAM_STATUS, nothing sent there`, async () => {
      const other = await startUpstream();
      try {
        upstream.handle((_req, res) => {
          res.writeHead(status, { location: `${other.url}/steal?from=gateway` });
          res.end();
        });
        const reply = await call('get_blob', {});
        await expectOutcome(reply, 502, 'UPSTREAM_STATUS', 1);
        expect(errorOf(reply).message).toContain(`a ${status} redirect`);
        expect(other.requests).toHaveLength(0);
      } finally {
        await other.close();
      }
    });
  }

  it('answers a refused connection with 502 UPSTREAM_UNREACHABLE', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const refused = await startGateway(securitySpec(`http://127.0.0.1:${port}/prefix`), {
      env: { SEC_TOKEN: TOKEN },
    });
    try {
      const reply = await postJson(`${refused.url}/api/get_blob`, {});
      expect(reply.status).toBe(502);
      expect(errorOf(reply).code).toBe('UPSTREAM_UNREACHABLE');
      expect(errorOf(reply).message).toContain('connection refused');
      expect(reply.text).not.toContain(TOKEN);
      expect(refused.logs()).not.toContain(TOKEN);
      expect((await fetch(`${refused.url}/healthz`)).status).toBe(200);
    } finally {
      await refused.close();
    }
  });

  it('answers a connection reset before the headers with 502 UPSTREAM_UNREACHABLE', async () => {
    upstream.handle((_req, res) => {
      res.socket?.destroy();
    });
    const reply = await call('get_blob', {});
    await expectOutcome(reply, 502, 'UPSTREAM_UNREACHABLE', 1);
  });

  it('answers a connection reset in the middle of the body with 502', async () => {
    upstream.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100000' });
      res.write('{"items":[1,2,3,');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const reply = await call('get_blob', {});
    await expectOutcome(reply, 502, 'UPSTREAM_UNREACHABLE', 1);
  });

  it('redacts the credential from an upstream error body that echoes the Authorization header', async () => {
    upstream.handle((req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'boom', authorization: req.headers.authorization }));
    });
    const reply = await call('get_blob', {});
    await expectOutcome(reply, 502, 'UPSTREAM_STATUS', 1);
    const { message, details } = errorOf(reply);
    expect(message).toContain('status 500');
    expect(message).toContain('Bearer [REDACTED]');
    expect((details as { body: string }).body).toContain('[REDACTED]');
  });

  it('redacts the credential echoed in a 200 JSON result', async () => {
    upstream.handle((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ headers: { authorization: req.headers.authorization }, token: TOKEN }),
      );
    });
    const reply = await call('get_blob', {});
    await expectOutcome(reply, 200, undefined, 1);
    expect((reply.json as { result: unknown }).result).toEqual({
      headers: { authorization: 'Bearer [REDACTED]' },
      token: '[REDACTED]',
    });
  });

  it('redacts the credential echoed in a text result', async () => {
    upstream.handle((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`debug: ${req.headers.authorization}\n`);
    });
    const reply = await call('get_blob', {});
    await expectOutcome(reply, 200, undefined, 1);
    expect((reply.json as { result: unknown }).result).toBe('debug: Bearer [REDACTED]\n');
  });

  it('redacts the credential echoed with JSON escapes such as PHP-style \\/', async () => {
    const escaped = TOKEN.replace(/\//g, '\\/').replace(/\+/g, '\\u002b');
    upstream.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"token":"${escaped}"}`);
    });
    const reply = await call('get_blob', {});
    await expectOutcome(reply, 200, undefined, 1);
  });

  it('answers a deeply nested upstream JSON body with a clear 502', async () => {
    upstream.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    });
    const reply = await call('get_blob', {});
    await expectOutcome(reply, 502, 'UPSTREAM_BAD_RESPONSE', 1);
  });

  it('is still ready after all of the above', async () => {
    const ready = await fetch(`${gw.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(gw.logs()).not.toContain(TOKEN);
  });
});
