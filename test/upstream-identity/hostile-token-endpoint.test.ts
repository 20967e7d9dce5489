/**
 * A token endpoint is somebody else's server (docs/security.md, "Upstream credentials
 * (client credentials and token exchange)"): one that answers a huge body, too slowly, not
 * JSON, a redirect, JSON without a token, or a refusal whose text quotes what it was sent
 * gets UPSTREAM_AUTH for the call, a message that names no secret and nothing of the
 * answer but an OAuth error code, and the upstream is sent nothing. A redirect is not
 * followed: its target never sees the client secret.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientCredentialsIdentity } from '../../src/engine/backends/upstream/identity/client-credentials.js';
import { exchangeIdentity } from '../../src/engine/backends/upstream/identity/exchange.js';
import { basicAuthorization } from '../../src/outbound/token-request.js';
import { call, tokenCaller } from '../helpers/upstream-identity-world.js';

const SECRET = 'hostile-test-client-secret-7d2f9c4e';
const env = { ID: 'gateway', SECRET };

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{
  server: Server;
  url: string;
}> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let endpoint: { server: Server; url: string };
let elsewhere: { server: Server; url: string };
let upstream: { server: Server; url: string };
const elsewhereSaw: string[] = [];
const upstreamSaw: string[] = [];

beforeAll(async () => {
  elsewhere = await listen((req, res) => {
    elsewhereSaw.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"access_token":"stolen","token_type":"Bearer"}');
  });
  upstream = await listen((req, res) => {
    upstreamSaw.push(req.headers.authorization ?? '');
    res.end('{}');
  });
  endpoint = await listen((req, res) => {
    const json = (status: number, body: string): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    switch (req.url) {
      case '/huge': {
        // Chunked, no length said: the reader must stop at its cap by itself.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"access_token":"');
        const chunk = 'x'.repeat(16 * 1024);
        let sent = 0;
        const more = (): void => {
          while (sent < 200 && res.write(chunk)) sent++;
          if (sent < 200) res.once('drain', more);
          else res.end('","token_type":"Bearer"}');
        };
        more();
        return;
      }
      case '/huge-declared':
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(10 << 20),
        });
        res.write('{');
        return; // never finished: the declared length alone is refused
      case '/slow':
        return; // never answers
      case '/html':
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>{"access_token":"t","token_type":"Bearer"}</html>');
        return;
      case '/redirect':
        res.writeHead(307, { location: `${elsewhere.url}/token` });
        res.end();
        return;
      case '/no-token':
        return json(200, '{"token_type":"Bearer","expires_in":3600}');
      case '/not-bearer':
        return json(200, '{"access_token":"abc.def","token_type":"mac"}');
      case '/chatty-refusal':
        return json(
          400,
          JSON.stringify({
            error: 'invalid_client',
            error_description: `client secret ${SECRET} is wrong`,
          }),
        );
      case '/hostile-code':
        return json(400, JSON.stringify({ error: `bad ${SECRET} <script>` }));
      default:
        return json(404, '{}');
    }
  });
});

afterAll(async () => {
  for (const s of [endpoint, elsewhere, upstream])
    await new Promise<void>((resolve) => {
      s?.server.closeAllConnections();
      s?.server.close(() => resolve());
    });
});

const identityAt = (path: string) =>
  clientCredentialsIdentity(
    {
      kind: 'client-credentials',
      tokenUrl: `${endpoint.url}${path}`,
      clientIdEnv: 'ID',
      clientSecretEnv: 'SECRET',
    },
    { env, upstream: 'hostile' },
    { timeoutMs: 1_000 },
  );

async function refusal(
  path: string,
): Promise<{ code: string; message: string; details?: unknown }> {
  const before = upstreamSaw.length;
  const answer = await call(identityAt(path), `${upstream.url}/anything`);
  expect(upstreamSaw.length).toBe(before);
  if (answer.ok) throw new Error(`expected a refusal from ${path}`);
  const text = JSON.stringify(answer.error);
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(basicAuthorization({ id: 'gateway', secret: SECRET }).slice(6));
  return answer.error;
}

describe('a hostile token endpoint', () => {
  it('answering a huge body without saying its length gets UPSTREAM_AUTH', async () => {
    const e = await refusal('/huge');
    expect(e.code).toBe('UPSTREAM_AUTH');
    expect(e.message).toMatch(/more than 65536 bytes/);
  });

  it('declaring a huge body gets UPSTREAM_AUTH without the body being read', async () => {
    const e = await refusal('/huge-declared');
    expect(e.code).toBe('UPSTREAM_AUTH');
    expect(e.message).toMatch(/more than 65536 bytes/);
  });

  it('answering past the deadline gets UPSTREAM_AUTH naming the deadline', async () => {
    const e = await refusal('/slow');
    expect(e.code).toBe('UPSTREAM_AUTH');
    expect(e.message).toMatch(/did not answer within 1000 ms/);
  });

  it('answering HTML gets UPSTREAM_AUTH naming the content type', async () => {
    const e = await refusal('/html');
    expect(e.code).toBe('UPSTREAM_AUTH');
    expect(e.message).toContain('"text/html", not JSON');
  });

  it('answering a redirect gets UPSTREAM_AUTH and the redirect target sees nothing', async () => {
    const e = await refusal('/redirect');
    expect(e.code).toBe('UPSTREAM_AUTH');
    expect(e.message).toContain('redirect (HTTP 307)');
    expect(elsewhereSaw).toEqual([]);
  });

  it('answering JSON without an access_token gets UPSTREAM_AUTH', async () => {
    const e = await refusal('/no-token');
    expect(e.code).toBe('UPSTREAM_AUTH');
    expect(e.message).toContain('without a usable access_token');
  });

  it('answering a token that is not Bearer gets UPSTREAM_AUTH', async () => {
    const e = await refusal('/not-bearer');
    expect(e.code).toBe('UPSTREAM_AUTH');
    expect(e.message).toContain('not Bearer');
  });

  it('refusing with a description that quotes the secret: only the error code is kept', async () => {
    const e = await refusal('/chatty-refusal');
    expect(e.code).toBe('UPSTREAM_AUTH');
    expect(e.message).toContain('refused with HTTP 400 (invalid_client)');
    expect(e.message).not.toContain('is wrong');
  });

  it('refusing with an error code that is not one: the code is dropped', async () => {
    const e = await refusal('/hostile-code');
    expect(e.message).toContain('refused with HTTP 400');
    expect(e.message).not.toContain('script');
    expect(e.details).toBeUndefined();
  });

  it('for token exchange too: a huge answer is UPSTREAM_AUTH and the subject token is named nowhere', async () => {
    const subject = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLW9mLWFsaWNl';
    const identity = exchangeIdentity(
      {
        kind: 'exchange',
        tokenUrl: `${endpoint.url}/huge`,
        clientIdEnv: 'ID',
        clientSecretEnv: 'SECRET',
        audience: 'https://api.example',
      },
      { env, upstream: 'hostile' },
      { timeoutMs: 2_000 },
    );
    const before = upstreamSaw.length;
    const answer = await call(identity, `${upstream.url}/x`, tokenCaller('alice', subject));
    expect(!answer.ok && answer.error.code).toBe('UPSTREAM_AUTH');
    expect(JSON.stringify(answer)).not.toContain(subject);
    expect(upstreamSaw.length).toBe(before);
  });
});
