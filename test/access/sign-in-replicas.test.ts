/**
 * Several replicas of a sign-in gateway (spec-language.md, "Sign-in for MCP clients"): given the same `token-key-env` and the same
 * Redis (`limits redis-env`) and one public URL, each accepts the codes, refresh tokens and
 * access tokens the other issued, and a code or refresh token spent at one is spent at
 * both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { LEGACY } from '../helpers/mcp-wire.js';
import { redisSkipReason, redisUrl } from '../helpers/needs-services.js';
import { skipBecause } from '../helpers/skip-reason.js';
import {
  findRedisServer,
  NO_REDIS_SERVER,
  startRedisServer,
  type RedisServer,
} from '../helpers/redis-server.js';
import { freePort } from '../../bench/lib/free-port.mjs';
import {
  CLIENT_REDIRECT,
  signInRaw,
  signInSpec,
  startSignInGateway,
  startSignInWorld,
  tokenRequest,
  type SignInWorld,
} from '../helpers/sign-in-gateway.js';

const NO_REDIS = redisSkipReason();
const NO_REDIS_BINARY = findRedisServer() ? undefined : NO_REDIS_SERVER;

describe.skipIf(
  skipBecause(NO_REDIS !== undefined, `sign-in-replicas.test.ts, Redis: ${NO_REDIS}`),
)('two replicas with one token key and one Redis', () => {
  let world: SignInWorld;
  let a: TestGateway;
  let b: TestGateway;

  beforeAll(async () => {
    world = await startSignInWorld();
    const spec = signInSpec(
      world.upstream.url,
      world.provider.issuer,
      'limits redis-env="REDIS_URL"',
    );
    const env = { REDIS_URL: redisUrl()! };
    a = await startSignInGateway(world, { spec, env });
    // Both answer as `a`'s address: one public URL in front of the replicas.
    b = await startSignInGateway(world, { spec, env, publicUrl: a.url });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await world?.close();
  });

  function toolsList(at: TestGateway, token: string) {
    return fetch(`${at.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': LEGACY,
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
  }

  it("exchanges at one replica a code the other issued, and each accepts the other's token", async () => {
    const { clientId, code, verifier } = await signInRaw(a, world.provider);
    const atB = await tokenRequest(b.url, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: CLIENT_REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(atB.status).toBe(200);
    const token = atB.json.access_token as string;
    expect((await toolsList(a, token)).status).toBe(200);
    expect((await toolsList(b, token)).status).toBe(200);
  });

  it('refuses at one replica a code already spent at the other', async () => {
    const { clientId, code, verifier } = await signInRaw(a, world.provider);
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: CLIENT_REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
    };
    expect((await tokenRequest(a.url, form)).status).toBe(200);
    const again = await tokenRequest(b.url, form);
    expect(again.status).toBe(400);
    expect(again.json).toEqual({
      error: 'invalid_grant',
      error_description: 'code was used already',
    });
  });

  it('refuses at one replica a refresh token already spent at the other', async () => {
    const { clientId, tokens } = await signInRaw(a, world.provider, { exchangeAt: a.url });
    const form = {
      grant_type: 'refresh_token',
      refresh_token: tokens!.refresh_token,
      client_id: clientId,
    };
    expect((await tokenRequest(b.url, form)).status).toBe(200);
    const again = await tokenRequest(a.url, form);
    expect(again.json).toEqual({
      error: 'invalid_grant',
      error_description: 'refresh_token was used already',
    });
  });
});

describe.skipIf(
  skipBecause(
    NO_REDIS_BINARY !== undefined,
    `sign-in-replicas.test.ts, Redis stopped: ${NO_REDIS_BINARY}`,
  ),
)('a replica whose Redis stopped', () => {
  let world: SignInWorld;
  let gw: TestGateway;
  let redis: RedisServer | undefined;

  beforeAll(async () => {
    const port = await freePort();
    redis = await startRedisServer(port);
    world = await startSignInWorld();
    gw = await startSignInGateway(world, {
      spec: signInSpec(world.upstream.url, world.provider.issuer, 'limits redis-env="REDIS_URL"'),
      env: { REDIS_URL: `redis://127.0.0.1:${port}` },
    });
  });

  afterAll(async () => {
    await gw?.close();
    await world?.close();
    await redis?.stop();
  });

  it('answers temporarily_unavailable at /token rather than risk a code being spent twice', async () => {
    const { clientId, code, verifier } = await signInRaw(gw, world.provider);
    await redis!.stop();
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: CLIENT_REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
    };
    const down = await tokenRequest(gw.url, form);
    expect(down.status).toBe(503);
    expect(down.json).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'the single-use store does not answer: retry shortly',
    });
    expect(gw.logs()).toContain(
      'Redis is unreachable: sign-in codes and refresh tokens are refused until it answers again',
    );
  });
});
