/**
 * The sealed 2025-era session id (src/projection/mcp/session-id.ts), as pure logic: what
 * initialize declared comes back out for the same caller under the same key, and nothing
 * comes out of a token that is altered, stale, another caller's or sealed under another key.
 */
import { createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { declaredModes, SESSION_TTL_MS, SessionSeal } from '../../src/projection/mcp/session-id.js';

const key = createSecretKey(randomBytes(32));
const alice = { id: 'api-key:ALICE#1', scopes: 'all' as const };
const bob = { id: 'api-key:BOB#1', scopes: 'all' as const };
const caps = { version: '2025-11-25', form: true, url: false };

describe('the sealed session id', () => {
  it('opens to what was sealed, for the same caller, on a seal of its own with the same key', () => {
    const token = new SessionSeal(key).seal(caps, alice);
    expect(token).toMatch(/^s1\.[A-Za-z0-9_-]+$/);
    expect(new SessionSeal(key).open(token, alice)).toMatchObject(caps);
    const both = { version: '2025-06-18', form: true, url: true };
    expect(new SessionSeal(key).open(new SessionSeal(key).seal(both, alice), alice)).toMatchObject(
      both,
    );
  });

  it('opens to nothing for another caller, even after the right caller opened it', () => {
    const seal = new SessionSeal(key);
    const token = seal.seal(caps, alice);
    expect(seal.open(token, alice)).toBeDefined();
    expect(seal.open(token, bob)).toBeUndefined();
  });

  it('opens to nothing when altered, under another key, or not a token at all', () => {
    const token = new SessionSeal(key).seal(caps, alice);
    const body = Buffer.from(token.slice(3), 'base64url');
    body[20] = body[20]! ^ 1;
    const altered = `s1.${body.toString('base64url')}`;
    const seal = new SessionSeal(key);
    expect(seal.open(altered, alice)).toBeUndefined();
    expect(new SessionSeal(createSecretKey(randomBytes(32))).open(token, alice)).toBeUndefined();
    for (const junk of ['', 's1.', 'c1.abc.def', token + 'A', token.slice(0, -1)])
      expect(seal.open(junk, alice)).toBeUndefined();
  });

  it('opens to nothing from its expiry on, cached or not', () => {
    let now = 1_000_000_000_000;
    const seal = new SessionSeal(key, () => now);
    const token = seal.seal(caps, alice);
    expect(seal.open(token, alice)).toBeDefined();
    now += SESSION_TTL_MS;
    expect(seal.open(token, alice)).toBeUndefined();
    expect(new SessionSeal(key, () => now).open(token, alice)).toBeUndefined();
  });
});

describe('the elicitation modes initialize declares', () => {
  it('reads an empty elicitation object as form, and names the modes given', () => {
    expect(declaredModes('2025-11-25', { elicitation: {} })).toEqual({
      version: '2025-11-25',
      form: true,
      url: false,
    });
    expect(declaredModes('2025-11-25', { elicitation: { url: {} } })).toMatchObject({
      form: false,
      url: true,
    });
    expect(declaredModes('2025-11-25', { elicitation: { form: {}, url: {} } })).toMatchObject({
      form: true,
      url: true,
    });
  });

  it('declares nothing without elicitation, or in 2025-03-26, which has none', () => {
    expect(declaredModes('2025-11-25', {})).toMatchObject({ form: false, url: false });
    expect(declaredModes('2025-11-25', undefined)).toMatchObject({ form: false, url: false });
    expect(declaredModes('2025-03-26', { elicitation: {} })).toMatchObject({
      form: false,
      url: false,
    });
  });
});
