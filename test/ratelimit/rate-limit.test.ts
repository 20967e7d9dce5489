/**
 * Rate limits (spec-language.md, `rate-limit "3/m"` and `limits redis-env="V"`):
 * per caller and per grant, 429 RATE_LIMITED with Retry-After on REST and an isError
 * result on MCP; in-process by default; shared through Redis by two real gateway
 * processes; and, with their Redis killed, each process falling back to its own
 * allowance and saying so in its log and in /metrics.
 *
 * The shared test uses the run's Redis (a private redis-server the suite started, or the
 * one REDIS_URL names: test/helpers/test-services.ts) under tool names unique to this
 * run, so it never touches anyone else's keys. The fallback test kills only a
 * redis-server it started itself on a free port.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipBecause } from '../helpers/skip-reason.js';
import type { Caller } from '../../src/engine/caller.js';
import { Gateway } from '../../src/engine/gateway.js';
import { withoutNumberTexts } from '../../src/json/number-text.js';
import { createMemoryLimiter } from '../../src/engine/rate-limit/memory-limiter.js';
import {
  prepareRateLimit,
  type RateLimit,
  type RateLimiter,
} from '../../src/engine/rate-limit/rate-limiter.js';
import { createServerLimiter } from '../../src/engine/rate-limit/server-limiter.js';
import { StartupError } from '../../src/process/startup-error.js';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { serveProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { callTool } from '../helpers/call-tool.js';
import { redisSkipReason, redisUrl } from '../helpers/needs-services.js';
import { freePort } from '../../bench/lib/free-port.mjs';
import {
  findRedisServer,
  NO_REDIS_SERVER,
  startRedisServer,
  type RedisServer,
} from '../helpers/redis-server.js';
import { scopeFor } from '../helpers/scope.js';

const KEY_A = 'rate-key-a-2f9c41d7';
const KEY_B = 'rate-key-b-8e13b6a0';
const KEY_METRICS = 'rate-key-metrics-5d0e7c12';
const SHARED_REDIS = redisUrl();
const NO_SHARED_REDIS = redisSkipReason();
const NO_REDIS_BINARY = findRedisServer() ? undefined : NO_REDIS_SERVER;

let upstream: Upstream;
let workDir: string;

beforeAll(async () => {
  upstream = await startUpstream();
  workDir = mkdtempSync(join(tmpdir(), 'mcpb-ratelimit-'));
});

afterAll(async () => {
  await upstream?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

function upstreamCalls(path: string): number {
  return upstream.requests.filter((r) => r.path === path).length;
}

const rest = (url: string, tool: string, key?: string) =>
  postJson(`${url}/api/${tool}`, {}, key ? { authorization: `Bearer ${key}` } : {});

const mcpCall = (url: string, tool: string, key?: string) =>
  callTool(url, tool, {}, { era: 'legacy', key });

async function metricValue(
  url: string,
  name: string,
  headers: Record<string, string> = {},
): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`, { headers })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

describe('limiter units', () => {
  it('counts a fixed window per key, answers the time left, and opens a new window after it', async () => {
    let now = 1_000_000;
    const lim = createMemoryLimiter({ now: () => now });
    const limit = { count: 2, windowMs: 60_000 };
    expect(await lim.hit('a', limit)).toEqual({ allowed: true, retryAfterMs: 0 });
    now += 10_000;
    expect((await lim.hit('a', limit)).allowed).toBe(true);
    expect(await lim.hit('a', limit)).toEqual({ allowed: false, retryAfterMs: 50_000 });
    expect((await lim.hit('b', limit)).allowed).toBe(true);
    now += 50_000;
    expect((await lim.hit('a', limit)).allowed).toBe(true);
    await lim.close();
  });

  it('stays bounded: expired windows are swept, and at the cap the oldest goes first', async () => {
    let now = 0;
    const lim = createMemoryLimiter({ now: () => now, maxKeys: 100 });
    const limit = { count: 1, windowMs: 1_000 };
    for (let i = 0; i < 1_000; i++) await lim.hit(`k${i}`, limit);
    expect(lim.size).toBe(100);
    // k999 is among the newest kept, so it is still counted.
    expect((await lim.hit('k999', limit)).allowed).toBe(false);
    // Past the windows, the next new key sweeps them all out.
    now = 5_000;
    await lim.hit('fresh', limit);
    expect(lim.size).toBe(1);
    await lim.close();
  });

  it('sweeps expired windows periodically, with no calls coming', async () => {
    let now = 0;
    const lim = createMemoryLimiter({ now: () => now, sweepIntervalMs: 10 });
    for (let i = 0; i < 50; i++) await lim.hit(`k${i}`, { count: 1, windowMs: 1_000 });
    expect(lim.size).toBe(50);
    now = 2_000;
    await waitFor('the sweep', 2_000, () => lim.size === 0);
    await lim.close();
  });

  it('turns a refusal into RATE_LIMITED with whole seconds to wait, at least 1', async () => {
    const refusing = (ms: number): RateLimiter => ({
      hit: () => Promise.resolve({ allowed: false, retryAfterMs: ms }),
      close: () => Promise.resolve(),
    });
    const caller: Caller = { id: 'ip:127.0.0.1', scopes: 'all' };
    const limit: RateLimit = { count: 60, windowMs: 60_000 };
    for (const [ms, s] of [
      [0, 1],
      [1, 1],
      [1_000, 1],
      [1_001, 2],
      [59_400, 60],
    ] as const) {
      const e = await prepareRateLimit('list_items', limit, refusing(ms))(caller);
      expect(e).toMatchObject({ code: 'RATE_LIMITED', retryAfter: s });
      expect(e!.message).toContain('60/m');
    }
  });

  it('asks the limiter only after the scope check, keyed by tool and caller id', async () => {
    const keys: string[] = [];
    const counting: RateLimiter = {
      hit: (key) => {
        keys.push(key);
        return Promise.resolve({ allowed: true, retryAfterMs: 0 });
      },
      close: () => Promise.resolve(),
    };
    const compiled = compileSpecText(
      `wrap "rl-unit" version="1.0.0"
base-url "${upstream.url}/api"
rate-limit "10/m"
can list items {
    path "/items"
    scope "items:read"
}`,
      'unit.mcp.kdl',
    ).compiled!;
    expect(compiled.tools[0]!.limits.rateLimit).toEqual({ count: 10, windowMs: 60_000 });
    const gw = await Gateway.prepare(compiled, { env: {}, rateLimiter: counting });
    const op = gw.view().operation('list_items')!;
    const denied = await gw.call(
      op,
      withoutNumberTexts({}),
      scopeFor({
        id: 'sub:nobody',
        scopes: new Set(['other']),
      }),
    );
    expect(denied).toMatchObject({ ok: false, error: { code: 'INSUFFICIENT_SCOPE' } });
    expect(keys).toEqual([]);
    const ok = await gw.call(
      op,
      withoutNumberTexts({}),
      scopeFor({
        id: 'sub:alice',
        scopes: new Set(['items:read']),
      }),
    );
    expect(ok.ok).toBe(true);
    expect(keys).toEqual(['list_items\u0000sub:alice']);
    await gw.close();
  });

  it('refuses to start when redis-env names a variable that is unset or not a Redis URL', async () => {
    const compiled = compileSpecText(
      `wrap "rl-env" version="1.0.0"
base-url "${upstream.url}/api"
limits redis-env="RL_REDIS_URL"
can list items { path "/items"; rate-limit "1/s"; }`,
      'env.mcp.kdl',
    ).compiled!;
    await expect(createServerLimiter(compiled, { env: {} })).rejects.toThrow(StartupError);
    await expect(createServerLimiter(compiled, { env: {} })).rejects.toThrow(/RL_REDIS_URL/);
    const secret = 'http://user:hunter2@example.invalid';
    const err = await createServerLimiter(compiled, { env: { RL_REDIS_URL: secret } }).catch(
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toMatch(/RL_REDIS_URL does not hold a redis/);
    expect((err as Error).message).not.toContain('hunter2');
  });
});

describe('in-process limits', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway(
      `wrap "rl-local" version="1.0.0"
base-url "${upstream.url}/api"
access {
    api-key env="KEY_A"
    api-key env="KEY_B"
    api-key env="KEY_METRICS" scopes="metrics:read"
}
can list items {
    path "/items"
    rate-limit "3/m"
}
can get status {
    path "/status"
}`,
      { env: { KEY_A, KEY_B, KEY_METRICS } },
    );
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('allows 3 calls a minute per caller, then answers 429 RATE_LIMITED with Retry-After on REST and an isError result on MCP', async () => {
    const before = upstreamCalls('/api/items');
    for (let i = 0; i < 3; i++) expect((await rest(gw.url, 'list_items', KEY_A)).status).toBe(200);

    const refused = await rest(gw.url, 'list_items', KEY_A);
    expect(refused.status).toBe(429);
    expect((refused.json as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // The same caller on the other surface spends the same allowance.
    const viaMcp = await mcpCall(gw.url, 'list_items', KEY_A);
    expect(viaMcp.isError).toBe(true);
    expect(viaMcp.content[0]!.text).toMatch(/^RATE_LIMITED: /);
    expect(viaMcp.content[0]!.text).toMatch(/Retry after \d+ s\./);

    // Another API key has an allowance of its own.
    for (let i = 0; i < 3; i++)
      expect((await mcpCall(gw.url, 'list_items', KEY_B)).isError).toBe(false);
    expect((await rest(gw.url, 'list_items', KEY_B)).status).toBe(429);
    expect((await mcpCall(gw.url, 'list_items', KEY_B)).isError).toBe(true);

    // Only the allowed calls reached the upstream.
    expect(upstreamCalls('/api/items') - before).toBe(6);
  });

  it('leaves grants without rate-limit alone', async () => {
    const before = upstreamCalls('/api/status');
    for (let i = 0; i < 8; i++) expect((await rest(gw.url, 'get_status', KEY_A)).status).toBe(200);
    expect(upstreamCalls('/api/status') - before).toBe(8);
  });

  it('counts refusals in the call metrics and reports no fallback', async () => {
    // With access, /metrics needs the metrics:read scope.
    const headers = { authorization: `Bearer ${KEY_METRICS}` };
    const text = await (await fetch(`${gw.url}/metrics`, { headers })).text();
    expect(text).toMatch(/mcp_beaver_tool_calls_total\{[^}]*outcome="RATE_LIMITED"[^}]*\} [1-9]/);
    expect(await metricValue(gw.url, 'mcp_beaver_rate_limit_fallback', headers)).toBe(0);
  });
});

function waitFor(
  what: string,
  timeoutMs: number,
  check: () => boolean | Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return (async () => {
    for (;;) {
      if (await check()) return;
      if (Date.now() > deadline)
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
}

function writeSpec(tool: string, redisEnv: string): string {
  const file = join(workDir, `${tool}.mcp.kdl`);
  writeFileSync(
    file,
    `wrap "rl-shared" version="1.0.0"
base-url "${upstream.url}/api"
limits redis-env="${redisEnv}"
can list ${tool} {
    path "/${tool}"
    rate-limit "5/m"
}
`,
  );
  return file;
}

/** Calls alternate between the gateways; returns how many each one allowed. */
async function alternate(gws: readonly GatewayProcess[], tool: string, each: number) {
  const allowed = gws.map(() => 0);
  const statuses: number[] = [];
  for (let i = 0; i < each; i++) {
    for (const [n, g] of gws.entries()) {
      const r = await rest(g.url, `list_${tool}`);
      statuses.push(r.status);
      if (r.status === 200) allowed[n]! += 1;
      else {
        expect(r.status).toBe(429);
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    }
  }
  return { allowed, statuses };
}

describe('what a rate limit counts (spec-language.md, "rate-limit")', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway(
      `wrap "rl-counts" version="1.0.0"
base-url "${upstream.url}/api"
rate-limit "2/m"
access {
    api-key env="KEY_A"
}
can list counted {
    path "/counted"
    query { limit "integer" min=1 }
}
can list other {
    path "/other"
}`,
      { env: { KEY_A } },
    );
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('counts a call refused for its arguments, and not a call without credentials', async () => {
    const before = upstreamCalls('/api/counted');
    // No key: 401 before the pipeline, so the caller's allowance is untouched.
    for (let i = 0; i < 3; i++) expect((await rest(gw.url, 'list_counted')).status).toBe(401);
    // An argument refused by the schema still spends one call of the allowance.
    const invalid = await postJson(
      `${gw.url}/api/list_counted`,
      { limit: 0 },
      { authorization: `Bearer ${KEY_A}` },
    );
    expect(invalid.status).toBe(400);
    expect((await rest(gw.url, 'list_counted', KEY_A)).status).toBe(200);
    expect((await rest(gw.url, 'list_counted', KEY_A)).status).toBe(429);
    expect(upstreamCalls('/api/counted') - before).toBe(1);
  });

  it('gives every grant its own allowance of the top-level default', async () => {
    // list_counted is spent above; list_other has two calls of its own.
    expect((await rest(gw.url, 'list_other', KEY_A)).status).toBe(200);
    expect((await rest(gw.url, 'list_other', KEY_A)).status).toBe(200);
    expect((await rest(gw.url, 'list_other', KEY_A)).status).toBe(429);
  });
});

describe.skipIf(
  skipBecause(
    NO_SHARED_REDIS !== undefined,
    `rate-limit.test.ts, shared Redis: ${NO_SHARED_REDIS}`,
  ),
)('two gateway processes sharing Redis', () => {
  const tool = `items_${randomBytes(4).toString('hex')}`;
  const gws: GatewayProcess[] = [];
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(SHARED_REDIS!, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    expect(await redis.ping()).toBe('PONG');
    const spec = writeSpec(tool, 'RL_REDIS_URL');
    gws.push(
      ...(await Promise.all([1, 2].map(() => serveProcess(spec, { RL_REDIS_URL: SHARED_REDIS! })))),
    );
  });

  afterAll(async () => {
    await Promise.all(gws.map((g) => g.stop()));
    redis?.disconnect();
  });

  it('holds one allowance of 5/m across both: 4 calls to each allow exactly 5', async () => {
    const before = upstreamCalls(`/api/${tool}`);
    const { allowed, statuses } = await alternate(gws, tool, 4);
    expect(allowed[0]! + allowed[1]!).toBe(5);
    expect(allowed[0]).toBeGreaterThan(0);
    expect(allowed[1]).toBeGreaterThan(0);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(upstreamCalls(`/api/${tool}`) - before).toBe(5);

    // The count lives in Redis, under the tool and caller, expiring with the window.
    const keys = await redis.keys(`mcpb:rl:60000:list_${tool}*`);
    expect(keys).toHaveLength(1);
    expect(Number(await redis.get(keys[0]!))).toBe(8);
    const ttl = await redis.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await redis.del(keys[0]!);

    for (const g of gws) {
      expect(await metricValue(g.url, 'mcp_beaver_rate_limit_fallback')).toBe(0);
      expect(g.log()).not.toContain('rate limits fall back');
    }
  });
});

describe.skipIf(
  skipBecause(
    NO_REDIS_BINARY !== undefined,
    `rate-limit.test.ts, Redis stopped: ${NO_REDIS_BINARY}`,
  ),
)('Redis stopped', () => {
  const tool = `items_${randomBytes(4).toString('hex')}`;
  const gws: GatewayProcess[] = [];
  let port: number;
  let redis: RedisServer | undefined;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedisServer(port);
    const spec = writeSpec(tool, 'RL_PRIVATE_REDIS');
    const env = { RL_PRIVATE_REDIS: `redis://127.0.0.1:${port}` };
    gws.push(...(await Promise.all([1, 2].map(() => serveProcess(spec, env)))));
  });

  afterAll(async () => {
    await Promise.all(gws.map((g) => g.stop()));
    await redis?.stop();
  });

  it('falls back to a per-process allowance, says so in the log and /metrics, and shares again once Redis is back', async () => {
    // Shared while Redis is up: 2 calls to each spend 4 of the 5.
    const up = await alternate(gws, tool, 2);
    expect(up.statuses).toEqual([200, 200, 200, 200]);

    await redis!.stop();
    for (const g of gws)
      await waitFor('the fallback gauge', 5_000, async () => {
        return (await metricValue(g.url, 'mcp_beaver_rate_limit_fallback')) === 1;
      });

    // Each process now counts on its own, from zero: 5 of 7 calls to each are allowed.
    const before = upstreamCalls(`/api/${tool}`);
    const down = await alternate(gws, tool, 7);
    expect(down.allowed).toEqual([5, 5]);
    expect(upstreamCalls(`/api/${tool}`) - before).toBe(10);
    for (const g of gws) {
      expect(await metricValue(g.url, 'mcp_beaver_rate_limit_fallback')).toBe(1);
      const warnings = g
        .log()
        .split('\n')
        .filter((l) => l.includes('rate limits fall back to per-pod counting'));
      // Said once, not once per call.
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!)).toMatchObject({ rateLimit: 'fallback', level: 40 });
    }

    // Redis back on the same port: the clients reconnect and the limits are shared again.
    redis = await startRedisServer(port);
    for (const g of gws)
      await waitFor('the fallback gauge to clear', 10_000, async () => {
        return (await metricValue(g.url, 'mcp_beaver_rate_limit_fallback')) === 0;
      });
    for (const g of gws) expect(g.log()).toContain('Redis answers again');
    // The new Redis starts empty: one shared allowance of 5 again.
    const again = await alternate(gws, tool, 3);
    expect(again.allowed[0]! + again.allowed[1]!).toBe(5);
  });
});
