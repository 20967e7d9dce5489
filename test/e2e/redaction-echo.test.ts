/**
 * Issue 14, defects 1 and 2: an upstream that echoes the credential it received,
 * escaped or encoded the way real stacks do (PHP's `\/`, .NET's `\u002B`, URLs
 * percent-encoded, the header in base64, form-encoded query strings), in an error body,
 * a 2xx text, a 2xx JSON or an invalid-JSON excerpt. Nothing of the credential may reach
 * the caller on either surface (REST, and MCP's text and structured content), nor the logs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { formEncoded, leaksIn, percentEncoded } from '../helpers/leaks.js';
import { postToolCall } from '../helpers/call-tool.js';
import { startUpstream, type RecordedRequest, type Upstream } from '../helpers/upstream.js';

const UP_TOKEN = 'UPSTREAM/tok+en_9f8e7d6c5b4a';
const BEARER = `Bearer ${UP_TOKEN}`;
// `~ ( ! ' ) *` and a space: percent-encoded as ~ %28 %21 %27 %29 %2A and %20; form-encoded
// (URLSearchParams) as %7E %28 %21 %27 %29 * and `+`.
const QUERY_KEY = "qk~(!) it's*key_77";
const BASIC_USER = 'svc-reader';
const BASIC_PASS = 'pa/ss+w0rd "quoted" é';

function spec(baseUrl: string, auth: string, query = ''): string {
  return `
wrap "echo" version="1.0.0"
base-url "${baseUrl}"
${auth}
can get echo {
    describe "Whatever the upstream answers."
    path "/echo"
    ${query}
}
`;
}

let upstream: Upstream;
let bearer: TestGateway;
let query: TestGateway;
let basic: TestGateway;
let queryForm: TestGateway;

beforeAll(async () => {
  upstream = await startUpstream();
  bearer = await startGateway(spec(upstream.url, 'auth bearer env="UP_TOKEN"'), {
    env: { UP_TOKEN },
  });
  query = await startGateway(spec(upstream.url, 'auth query "api_key" env="Q_KEY"'), {
    env: { Q_KEY: QUERY_KEY },
  });
  queryForm = await startGateway(
    spec(upstream.url, 'auth query "api_key" env="Q_KEY"', 'query encoding="form" { q "string"; }'),
    { env: { Q_KEY: QUERY_KEY } },
  );
  basic = await startGateway(
    spec(upstream.url, 'auth basic username-env="B_USER" password-env="B_PASS"'),
    { env: { B_USER: BASIC_USER, B_PASS: BASIC_PASS } },
  );
});

afterAll(async () => {
  await Promise.all([bearer?.close(), query?.close(), queryForm?.close(), basic?.close()]);
  await upstream?.close();
});

function answer(status: number, contentType: string, body: (req: RecordedRequest) => string) {
  upstream.handle((req, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': contentType });
    res.end(body(req));
  });
}

interface Replies {
  rest: { status: number; text: string; json: unknown };
  mcp: { status: number; text: string; json: unknown };
}

/** The same call over REST and over MCP (legacy era, plain JSON answer). */
async function callBoth(gw: TestGateway): Promise<Replies> {
  const rest = await postJson(`${gw.url}/api/get_echo`, {});
  const mcp = await postToolCall(gw.url, 'get_echo', {}, { era: 'legacy' });
  return { rest, mcp };
}

const restError = (r: Replies['rest']) =>
  (r.json as { error: { code: string; message: string; details?: { body?: string } } }).error;
const mcpResult = (r: Replies['mcp']) =>
  (r.json as { result: { isError: boolean; content: { text: string }[] } }).result;

function expectNoLeak(replies: Replies, gw: TestGateway, values: readonly string[]): void {
  expect(leaksIn(replies.rest.text, values)).toEqual([]);
  expect(leaksIn(replies.mcp.text, values)).toEqual([]);
  expect(leaksIn(gw.logs(), values)).toEqual([]);
}

const BEARER_VALUES = [UP_TOKEN, BEARER];

describe('an upstream echoing the bearer token', () => {
  it('answering 401 {"got":"Bearer UPSTREAM\\/tok+en_…"} (PHP) leaves nothing of the token in the message, details.body or the MCP result', async () => {
    answer(401, 'application/json', () => `{"got":"${BEARER.replace(/\//g, '\\/')}"}`);
    const r = await callBoth(bearer);
    expect(r.rest.status).toBe(502);
    const e = restError(r.rest);
    expect(e.code).toBe('UPSTREAM_STATUS');
    expect(e.message).toContain('Bearer [REDACTED]');
    expect(e.details?.body).toBe('{"got":"Bearer [REDACTED]"}');
    expect(mcpResult(r.mcp).isError).toBe(true);
    expect(mcpResult(r.mcp).content[0]!.text).toContain('Bearer [REDACTED]');
    expectNoLeak(r, bearer, BEARER_VALUES);
  });

  it('answering 401 with the token as .NET writes it (\\u002B, either hex case) leaves nothing of it', async () => {
    for (const plus of ['\\u002B', '\\u002b']) {
      answer(401, 'application/json', () => `{"got":"${BEARER.replace('+', plus)}"}`);
      const r = await callBoth(bearer);
      expect(restError(r.rest).details?.body).toBe('{"got":"Bearer [REDACTED]"}');
      expectNoLeak(r, bearer, BEARER_VALUES);
    }
  });

  it('answering 401 with the token percent-encoded (%2F, %2B, either case) leaves nothing of it', async () => {
    for (const enc of [
      encodeURIComponent(UP_TOKEN),
      encodeURIComponent(UP_TOKEN).replace(/%2[BF]/g, (m) => m.toLowerCase()),
    ]) {
      answer(401, 'text/plain', () => `denied for /echo?access_token=${enc}`);
      const r = await callBoth(bearer);
      expect(restError(r.rest).details?.body).toBe('denied for /echo?access_token=[REDACTED]');
      expectNoLeak(r, bearer, BEARER_VALUES);
    }
  });

  it('answering with the Authorization header in base64 or base64url leaves nothing of it', async () => {
    for (const alphabet of ['base64', 'base64url'] as const) {
      const encoded = Buffer.from(BEARER).toString(alphabet);
      answer(403, 'application/json', () => JSON.stringify({ header_b64: encoded }));
      const denied = await callBoth(bearer);
      expect(restError(denied.rest).details?.body).toBe('{"header_b64":"[REDACTED]"}');
      expectNoLeak(denied, bearer, BEARER_VALUES);
      answer(200, 'application/json', () => JSON.stringify({ header_b64: encoded }));
      const ok = await callBoth(bearer);
      expect((ok.rest.json as { result: unknown }).result).toEqual({ header_b64: '[REDACTED]' });
      expectNoLeak(ok, bearer, BEARER_VALUES);
    }
  });

  it('answering a 2xx text/plain with the escaped token leaves nothing of it in the result', async () => {
    answer(200, 'text/plain', () => `debug: got ${BEARER.replace('/', '\\/')}\n`);
    const r = await callBoth(bearer);
    expect(r.rest.status).toBe(200);
    expect((r.rest.json as { result: unknown }).result).toBe('debug: got Bearer [REDACTED]\n');
    expectNoLeak(r, bearer, BEARER_VALUES);
  });

  it('answering invalid JSON with the escaped token leaves nothing of it in the excerpt', async () => {
    answer(200, 'application/json', () => `{"you_sent":"${BEARER.replace('/', '\\/')}"`);
    const r = await callBoth(bearer);
    expect(restError(r.rest).code).toBe('UPSTREAM_BAD_RESPONSE');
    expect(restError(r.rest).message).toContain('Bearer [REDACTED]');
    expectNoLeak(r, bearer, BEARER_VALUES);
  });

  it('answering a 2xx JSON that holds the token escaped returns the rest of the result', async () => {
    answer(200, 'application/json', () =>
      JSON.stringify({
        ok: true,
        echoed: `x ${BEARER} y`,
        nested: JSON.stringify({ BEARER }),
      }).replace(/\//g, '\\/'),
    );
    const r = await callBoth(bearer);
    expect((r.rest.json as { result: unknown }).result).toEqual({
      ok: true,
      echoed: 'x Bearer [REDACTED] y',
      nested: '{"BEARER":"Bearer [REDACTED]"}',
    });
    expectNoLeak(r, bearer, BEARER_VALUES);
  });
});

describe('an echo outside the body', () => {
  it('is redacted from an error message built from an upstream header (Content-Encoding)', async () => {
    upstream.handle((_req, res: ServerResponse) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': BEARER.replace('/', '\\/'),
      });
      res.end('{}');
    });
    const r = await callBoth(bearer);
    expect(restError(r.rest).code).toBe('UPSTREAM_BAD_RESPONSE');
    expect(restError(r.rest).message).toContain('Bearer [REDACTED]');
    expectNoLeak(r, bearer, BEARER_VALUES);
  });

  it('is redacted from every log line, whatever logged it', async () => {
    bearer.app.log.warn(
      {
        err: {
          message: `boom ${BEARER.replace('+', '\\u002b')}`,
          url: encodeURIComponent(UP_TOKEN),
        },
      },
      `echo ${Buffer.from(BEARER).toString('base64')}`,
    );
    const last = bearer.logs().trim().split('\n').at(-1)!;
    expect(JSON.parse(last)).toMatchObject({
      err: { message: 'boom Bearer [REDACTED]', url: '[REDACTED]' },
      msg: 'echo [REDACTED]',
    });
    expect(leaksIn(bearer.logs(), BEARER_VALUES)).toEqual([]);
  });
});

describe('a reload that changes the credential', () => {
  it('redacts the log lines of both the new spec’s and the draining spec’s secrets', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcpb-redact-reload-'));
    const file = join(dir, 'echo.mcp.kdl');
    const OLD = 'old-token/before+reload_1a2b';
    const NEW = 'new-token/after+reload_3c4d';
    writeFileSync(file, spec(upstream.url, 'auth bearer env="OLD_TOKEN"'));
    const gw = await startGateway(spec(upstream.url, 'auth bearer env="OLD_TOKEN"'), {
      env: { OLD_TOKEN: OLD, NEW_TOKEN: NEW },
      specFile: file,
    });
    try {
      writeFileSync(file, spec(upstream.url, 'auth bearer env="NEW_TOKEN"'));
      await expect(gw.reload()).resolves.toMatchObject({ ok: true, generation: 2 });
      // The old runtime is still retiring (its calls may still log): both are redacted.
      gw.app.log.warn({ old: OLD.replace('/', '\\/'), now: encodeURIComponent(NEW) }, 'echo');
      const last = gw.logs().trim().split('\n').at(-1)!;
      expect(JSON.parse(last)).toMatchObject({ old: '[REDACTED]', now: '[REDACTED]' });
      expect(leaksIn(gw.logs(), [OLD, NEW])).toEqual([]);
    } finally {
      await gw.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an upstream echoing the URL of an `auth query` grant', () => {
  it('sent the key percent-encoded (( ! * as %28 %21 %2A, space as %20), and echoing that URL leaks nothing', async () => {
    answer(200, 'application/json', (req) => JSON.stringify({ url: req.url }));
    const r = await callBoth(query);
    const sent = upstream.requests.at(-1)!;
    expect(sent.query).toBe(`api_key=${percentEncoded(QUERY_KEY)}`);
    expect(sent.query).toContain('~%28%21%29%20it%27s%2Akey');
    expect((r.rest.json as { result: unknown }).result).toEqual({
      url: '/echo?api_key=[REDACTED]',
    });
    expectNoLeak(r, query, [QUERY_KEY]);
  });

  it('with query encoding="form" sent the key form-encoded (~ as %7E, space as +), and echoing that URL leaks nothing', async () => {
    answer(200, 'application/json', (req) => JSON.stringify({ url: req.url }));
    const r = await callBoth(queryForm);
    const sent = upstream.requests.at(-1)!;
    expect(sent.query).toBe(`api_key=${formEncoded(QUERY_KEY)}`);
    expect(sent.query).toContain('%7E%28%21%29+it%27s*key');
    expect((r.rest.json as { result: unknown }).result).toEqual({
      url: '/echo?api_key=[REDACTED]',
    });
    expectNoLeak(r, queryForm, [QUERY_KEY]);
  });

  it('echoing the URL in an error, lower-case or as encodeURIComponent writes it, leaks nothing', async () => {
    for (const spell of [
      (url: string) => url.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
      () => `/echo?api_key=${encodeURIComponent(QUERY_KEY)}`,
      () => `/echo?api_key=${QUERY_KEY}`,
    ]) {
      answer(404, 'text/html', (req) => `<p>No route for ${spell(req.url)}</p>`);
      const r = await callBoth(query);
      expect(restError(r.rest).details?.body).toMatch(
        /^<p>No route for \/echo\?.*\[REDACTED\]<\/p>$/,
      );
      expectNoLeak(r, query, [QUERY_KEY]);
    }
  });
});

describe('an upstream echoing the basic credential', () => {
  it('leaks neither the password nor user:pass nor the header, escaped or in base64', async () => {
    const pair = `${BASIC_USER}:${BASIC_PASS}`;
    answer(401, 'application/json', (req) =>
      JSON.stringify({
        authorization: req.headers.authorization,
        decoded: pair,
        ascii: JSON.stringify(pair).replace(
          /[^\x20-\x7e]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16)}`,
        ),
        header_b64: Buffer.from(req.headers.authorization ?? '').toString('base64'),
      }),
    );
    const r = await callBoth(basic);
    expect(restError(r.rest).code).toBe('UPSTREAM_STATUS');
    expect(restError(r.rest).details?.body).toContain(BASIC_USER);
    expectNoLeak(r, basic, [BASIC_PASS, pair, Buffer.from(pair).toString('base64')]);
  });
});
