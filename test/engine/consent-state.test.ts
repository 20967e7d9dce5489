/**
 * Confirmation request states (issue 29, "Confirmation and approval", not yet in the docs): sealed,
 * bound to caller, tool and arguments, expiring, refused as values when bad, and spent
 * once — in memory, and in the run's real Redis (test/helpers/test-services.ts) under a
 * prefix unique to this run, shared by two store instances as two replicas would be.
 */
import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipBecause } from '../helpers/skip-reason.js';
import { redisSkipReason, redisUrl } from '../helpers/needs-services.js';
import { canonicalJson } from '../../src/engine/consent/arguments-digest.js';
import { parseJson } from '../../src/json/number-text.js';
import { consentKeyFrom, randomConsentKey } from '../../src/engine/consent/consent-key.js';
import {
  argumentsDigest,
  openRequestState,
  REQUEST_STATE_TTL_MS,
  sealRequestState,
  type ConsentBinding,
} from '../../src/engine/consent/request-state.js';
import { createRedisSpentStates } from '../../src/engine/consent/redis-spent-states.js';
import {
  createMemorySpentStates,
  type SpentStates,
} from '../../src/engine/consent/spent-states.js';

const T0 = 1_800_000_000_000;
const at = (ms: number) => () => ms;
const binding: ConsentBinding = {
  caller: 'api-key:AGENT_KEY',
  tool: 'delete_order',
  args: { id: 42, reason: 'duplicate', tags: ['a', 'b'] },
};

/** The base64url character after `c`. */
function nextOf(c: string): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return chars[chars.indexOf(c) + 1]!;
}

function flipByte(text: string, index: number): string {
  const c = text[index]!;
  return `${text.slice(0, index)}${c === 'A' ? 'B' : 'A'}${text.slice(index + 1)}`;
}

describe('request states', () => {
  const key = randomConsentKey();

  it('opens what it sealed, for the same caller, tool and arguments', () => {
    const { requestState, state } = sealRequestState(key, binding, { now: at(T0) });
    expect(state.expiresAt).toBe(T0 + REQUEST_STATE_TTL_MS);
    expect(state.argumentsDigest).toBe(argumentsDigest(binding.args));
    expect(state.nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(requestState).toMatch(/^c1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const opened = openRequestState(key, requestState, binding, { now: at(T0 + 1_000) });
    expect(opened).toEqual({ ok: true, state });
  });

  it('draws a new nonce for every seal of the same call', () => {
    const a = sealRequestState(key, binding, { now: at(T0) });
    const b = sealRequestState(key, binding, { now: at(T0) });
    expect(a.state.nonce).not.toBe(b.state.nonce);
    expect(a.requestState).not.toBe(b.requestState);
  });

  it('calls a state with any byte of its payload or mac flipped forged', () => {
    const { requestState } = sealRequestState(key, binding, { now: at(T0) });
    const [, payload, tag] = requestState.split('.') as [string, string, string];
    for (const index of [3, 3 + Math.floor(payload.length / 2), 3 + payload.length - 2]) {
      const opened = openRequestState(key, flipByte(requestState, index), binding, {
        now: at(T0),
      });
      expect(opened).toEqual({ ok: false, reason: 'forged' });
    }
    // The mac's first character: its last one holds padding bits a decoder may ignore.
    const macStart = requestState.length - tag.length;
    expect(
      openRequestState(key, flipByte(requestState, macStart), binding, { now: at(T0) }),
    ).toEqual({ ok: false, reason: 'forged' });
  });

  it('accepts only the one spelling of a mac, not one differing in its unused last bits', () => {
    const { requestState } = sealRequestState(key, binding, { now: at(T0) });
    // 32 bytes end in a character holding 4 bits and 2 unused zero bits: the next
    // character of the alphabet decodes to the same bytes.
    const respelled = `${requestState.slice(0, -1)}${nextOf(requestState.at(-1)!)}`;
    expect(respelled).not.toBe(requestState);
    expect(openRequestState(key, respelled, binding, { now: at(T0) })).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });

  it('calls a state sealed under another key forged', () => {
    const { requestState } = sealRequestState(randomConsentKey(), binding, { now: at(T0) });
    expect(openRequestState(key, requestState, binding, { now: at(T0) })).toEqual({
      ok: false,
      reason: 'forged',
    });
  });

  it('calls a state expired from its expiry instant on, and not a millisecond before', () => {
    const { requestState, state } = sealRequestState(key, binding, { now: at(T0) });
    const open = (now: number) => openRequestState(key, requestState, binding, { now: at(now) });
    expect(open(state.expiresAt - 1).ok).toBe(true);
    expect(open(state.expiresAt)).toEqual({ ok: false, reason: 'expired' });
    expect(open(state.expiresAt + 3_600_000)).toEqual({ ok: false, reason: 'expired' });
  });

  it('honours a shorter time to live', () => {
    const { state } = sealRequestState(key, binding, { now: at(T0), ttlMs: 10_000 });
    expect(state.expiresAt).toBe(T0 + 10_000);
  });

  it('calls a state presented by another caller, for another tool or other arguments a mismatch', () => {
    const { requestState } = sealRequestState(key, binding, { now: at(T0) });
    const others: ConsentBinding[] = [
      { ...binding, caller: 'api-key:FINANCE_KEY' },
      { ...binding, caller: '' },
      { ...binding, tool: 'create_refund' },
      { ...binding, args: { ...(binding.args as object), id: 43 } },
      { ...binding, args: { id: 42, reason: 'duplicate', tags: ['b', 'a'] } },
      { ...binding, args: { id: '42', reason: 'duplicate', tags: ['a', 'b'] } },
      { ...binding, args: {} },
    ];
    for (const other of others)
      expect(openRequestState(key, requestState, other, { now: at(T0) })).toEqual({
        ok: false,
        reason: 'mismatch',
      });
  });

  it('opens a state for the same arguments written with their keys in another order', () => {
    const { requestState } = sealRequestState(
      key,
      { ...binding, args: { b: { y: 1, x: [{ q: 1, p: 2 }] }, a: 'z' } },
      { now: at(T0) },
    );
    const reordered = { ...binding, args: { a: 'z', b: { x: [{ p: 2, q: 1 }], y: 1 } } };
    expect(openRequestState(key, requestState, reordered, { now: at(T0) }).ok).toBe(true);
  });

  it('refuses malformed and oversized inputs as values, without throwing', () => {
    const { requestState } = sealRequestState(key, binding, { now: at(T0) });
    const [, payload, tag] = requestState.split('.') as [string, string, string];
    const bad: unknown[] = [
      undefined,
      null,
      42,
      {},
      ['c1', payload, tag],
      '',
      'c1',
      'c1..',
      `c1.${payload}`,
      `c2.${payload}.${tag}`,
      `c1.${payload}.${tag}.extra`,
      `c1.${payload}!.${tag}`,
      `c1.${payload}.${tag.slice(0, 20)}`,
      `c1.${payload}.${tag}AAAA`,
      `c1.${payload}.${'\u00e9'.repeat(43)}`,
      '\u0000'.repeat(100),
      `c1.${'A'.repeat(4096)}.${tag}`,
      'x'.repeat(10_000_000),
    ];
    for (const input of bad) {
      const opened = openRequestState(key, input, binding, { now: at(T0) });
      expect(opened).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('refuses an oversized input before reading it', () => {
    const huge = `c1.${'A'.repeat(50_000_000)}.${'A'.repeat(43)}`;
    // Malformed, not forged: it is refused on its length, before any MAC is computed.
    expect(openRequestState(key, huge, binding)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('calls an authentic state whose payload is not what sealing writes malformed', () => {
    // Sealed with the module's own mac over a payload it would never write.
    const raw = randomBytes(32);
    const k = createSecretKey(raw);
    const payload = Buffer.from(JSON.stringify({ c: 1, t: 'x' })).toString('base64url');
    const tag = createHmac('sha256', k).update(`c1.${payload}`).digest('base64url');
    expect(openRequestState(k, `c1.${payload}.${tag}`, binding)).toEqual({
      ok: false,
      reason: 'malformed',
    });
  });
});

describe('argument digests', () => {
  it('writes canonical JSON with sorted keys and no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], c: { z: 1.5, y: undefined } })).toBe(
      '{"a":[true,null,"x"],"b":1,"c":{"z":1.5}}',
    );
    expect(canonicalJson(12345678901234567890n)).toBe('12345678901234567890');
  });

  it('gives the same digest for the same arguments in another order, and another for others', () => {
    expect(argumentsDigest({ a: 1, b: { c: 2, d: 3 } })).toBe(
      argumentsDigest({ b: { d: 3, c: 2 }, a: 1 }),
    );
    expect(argumentsDigest({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
    expect(argumentsDigest({ a: 1 })).not.toBe(argumentsDigest({ a: '1' }));
    expect(argumentsDigest([1, 2])).not.toBe(argumentsDigest([2, 1]));
  });

  it('writes each number as the caller wrote it, in any key order, so texts of one double differ', () => {
    const read = parseJson('{"z":[1.00000000000000000001,-0],"m":{"v":1e400,"a":1.50},"b":2}');
    expect(canonicalJson(read.value, read.texts)).toBe(
      '{"b":2,"m":{"a":1.50,"v":1e400},"z":[1.00000000000000000001,-0]}',
    );
    const digest = (text: string): string => {
      const r = parseJson(text);
      return argumentsDigest(r.value, r.texts);
    };
    expect(digest('{"v":1e400}')).not.toBe(digest('{"v":null}'));
    expect(digest('{"v":-0}')).not.toBe(digest('{"v":0}'));
    expect(digest('{"v":[1.00000000000000000001]}')).not.toBe(digest('{"v":[1]}'));
    expect(digest('{"a":{"v":1e400},"b":1}')).toBe(digest('{"b":1,"a":{"v":1e400}}'));
  });
});

describe('consent keys', () => {
  const bytes = randomBytes(32);

  it('reads 32 bytes written as hex, in either case', () => {
    for (const text of [bytes.toString('hex'), bytes.toString('hex').toUpperCase()]) {
      const result = consentKeyFrom('CONFIRM_KEY', text);
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.key.export()).toEqual(bytes);
    }
  });

  it('reads 32 or more bytes written as base64, standard or URL-safe, padded or not', () => {
    const long = randomBytes(48);
    const texts = [
      [bytes, bytes.toString('base64')],
      [bytes, bytes.toString('base64').replace(/=+$/, '')],
      [bytes, bytes.toString('base64url')],
      [long, long.toString('base64')],
      [bytes, ` ${bytes.toString('base64')}\n`],
    ] as const;
    for (const [want, text] of texts) {
      const result = consentKeyFrom('CONFIRM_KEY', text);
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.key.export()).toEqual(want);
    }
  });

  it('refuses fewer than 32 bytes, naming the variable and the count', () => {
    for (const text of [randomBytes(31).toString('hex'), randomBytes(16).toString('base64')]) {
      const result = consentKeyFrom('CONFIRM_KEY', text);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.message).toMatch(
          /^access confirm-key-env="CONFIRM_KEY": CONFIRM_KEY holds (31|16) bytes/,
        );
        expect(result.message).not.toContain(text);
      }
    }
  });

  it('refuses an unset variable and a value that is neither hex nor base64, never echoing it', () => {
    for (const text of [undefined, '', '   ']) {
      const result = consentKeyFrom('CONFIRM_KEY', text);
      expect(result).toEqual({
        ok: false,
        message: expect.stringMatching(/CONFIRM_KEY is not set/),
      });
    }
    const garbage = ['not a key at all, just words!!', `${'z'.repeat(40)}$$`, 'A'.repeat(45)];
    for (const text of garbage) {
      const result = consentKeyFrom('CONFIRM_KEY', text);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.message).toMatch(/CONFIRM_KEY is neither hex nor base64/);
        expect(result.message).not.toContain(text);
      }
    }
  });

  it('draws a different random key for every process', () => {
    expect(randomConsentKey().export()).not.toEqual(randomConsentKey().export());
    expect(randomConsentKey().export()).toHaveLength(32);
  });
});

describe('spent states in memory', () => {
  it('spends a nonce once', async () => {
    const spent = createMemorySpentStates({ now: at(T0) });
    expect(await spent.markSpent('n1', T0 + 1_000)).toBe(true);
    expect(await spent.markSpent('n1', T0 + 1_000)).toBe(false);
    expect(await spent.markSpent('n2', T0 + 1_000)).toBe(true);
    await spent.close();
  });

  it('refuses a nonce whose state has already expired', async () => {
    const spent = createMemorySpentStates({ now: at(T0) });
    expect(await spent.markSpent('n1', T0)).toBe(false);
  });

  it('drops entries after their expiry, and refuses new ones while full of live ones', async () => {
    let now = T0;
    const spent = createMemorySpentStates({ maxEntries: 2, now: () => now });
    expect(await spent.markSpent('a', T0 + 100)).toBe(true);
    expect(await spent.markSpent('b', T0 + 200)).toBe(true);
    // Full of live nonces: forgetting one would allow its replay.
    expect(await spent.markSpent('c', T0 + 300)).toBe(false);
    expect(await spent.markSpent('a', T0 + 100)).toBe(false);
    now = T0 + 150;
    expect(await spent.markSpent('c', T0 + 300)).toBe(true);
    expect(await spent.markSpent('b', T0 + 200)).toBe(false);
    now = T0 + 1_000;
    expect(await spent.markSpent('d', T0 + 2_000)).toBe(true);
    expect(await spent.markSpent('e', T0 + 2_000)).toBe(true);
  });
});

const REDIS = redisUrl();
const NO_REDIS = redisSkipReason();

describe.skipIf(skipBecause(!REDIS, `consent-state.test.ts, Redis: ${NO_REDIS}`))(
  'spent states in Redis',
  () => {
    const prefix = `mcpb:test:consent:${randomBytes(6).toString('hex')}:`;
    let redis: Redis;
    const stores: SpentStates[] = [];
    const open = async (opts = {}) => {
      const store = await createRedisSpentStates(REDIS!, { prefix, ...opts });
      stores.push(store);
      return store;
    };

    beforeAll(async () => {
      redis = new Redis(REDIS!, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
    });

    afterAll(async () => {
      await Promise.all(stores.map((s) => s.close()));
      if (redis) {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        redis.disconnect();
      }
    });

    it('spends a nonce once, and keeps it a while past its expiry', async () => {
      const spent = await open();
      const nonce = randomBytes(16).toString('base64url');
      const expiresAt = Date.now() + 5_000;
      expect(await spent.markSpent(nonce, expiresAt)).toBe(true);
      expect(await spent.markSpent(nonce, expiresAt)).toBe(false);
      const ttl = await redis.pttl(`${prefix}${nonce}`);
      expect(ttl).toBeGreaterThan(60_000);
      expect(ttl).toBeLessThanOrEqual(65_000);
      expect(await spent.markSpent(randomBytes(16).toString('base64url'), expiresAt)).toBe(true);
    });

    it('lets only one of two replicas on the same Redis spend a state', async () => {
      const [a, b] = [await open(), await open()];
      const nonce = randomBytes(16).toString('base64url');
      const expiresAt = Date.now() + 60_000;
      const answers = await Promise.all([
        a.markSpent(nonce, expiresAt),
        b.markSpent(nonce, expiresAt),
      ]);
      expect(answers.filter(Boolean)).toHaveLength(1);
      expect(await a.markSpent(nonce, expiresAt)).toBe(false);
      expect(await b.markSpent(nonce, expiresAt)).toBe(false);
    });

    it('spends a real sealed state once across replicas', async () => {
      const key = randomConsentKey();
      const { requestState } = sealRequestState(key, binding);
      const [a, b] = [await open(), await open()];
      const opened = openRequestState(key, requestState, binding);
      expect(opened.ok).toBe(true);
      if (!opened.ok) return;
      expect(await a.markSpent(opened.state.nonce, opened.state.expiresAt)).toBe(true);
      expect(await b.markSpent(opened.state.nonce, opened.state.expiresAt)).toBe(false);
    });

    it('refuses every spend while Redis cannot be reached (rejecting: not "already used"), and says so once', async () => {
      const warnings: unknown[] = [];
      const log = { warn: (o: unknown) => warnings.push(o), info: () => undefined };
      // Port 1 on the loopback: nothing listens there.
      const down = await createRedisSpentStates('redis://127.0.0.1:1', {
        prefix,
        log,
        connectTimeoutMs: 200,
      });
      stores.push(down);
      await expect(down.markSpent('x', Date.now() + 60_000)).rejects.toThrow(/Redis cannot record/);
      await expect(down.markSpent('y', Date.now() + 60_000)).rejects.toThrow(/Redis cannot record/);
      expect(warnings).toHaveLength(1);
    });
  },
);
