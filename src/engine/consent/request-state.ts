/**
 * The `requestState` of a confirmation (docs/spec-language.md, "Confirmation and approval"):
 * the gateway is stateless between the call that asks and the retry that answers, so
 * the state carries what the retry must match — the caller, the tool, a digest of the
 * validated arguments — with a nonce (for single use: spent-states.ts) and an expiry,
 * sealed with HMAC-SHA-256 so a client can read it but not forge or alter it.
 *
 * Token: `c1.<payload>.<mac>`, both parts base64url without padding; payload is the JSON
 * `{"c":caller,"t":tool,"d":digest,"n":nonce,"e":expiresAtMs}` and mac is
 * HMAC-SHA-256(key, "c1." + payload). The caller and tool are visible to whoever holds
 * the token, which is the caller itself.
 *
 * Opening never throws: every failure is a reason the engine turns into
 * CONFIRMATION_INVALID.
 */
import { createHmac, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { argumentsDigest } from './arguments-digest.js';

export { argumentsDigest } from './arguments-digest.js';

/** The spec's five minutes. */
export const REQUEST_STATE_TTL_MS = 5 * 60_000;
/** Longer than any token this module seals; anything larger is refused unread. */
export const REQUEST_STATE_MAX_LENGTH = 4096;

const VERSION = 'c1';
const MAC_BYTES = 32;
const NONCE_BYTES = 16;

/** What a confirmation is bound to; the engine names the caller (one string per identity). */
export interface ConsentBinding {
  readonly caller: string;
  readonly tool: string;
  /** The validated arguments; only their digest is sealed. */
  readonly args: unknown;
  /** argumentsDigest(args), when the caller already has it (the consent step does). */
  readonly argumentsDigest?: string;
}

export interface ConsentState {
  readonly caller: string;
  readonly tool: string;
  /** argumentsDigest(args): 64 hex digits. */
  readonly argumentsDigest: string;
  /** 16 random bytes, base64url: the key of single use (SpentStates.markSpent). */
  readonly nonce: string;
  /** Epoch milliseconds; the state is refused from this instant on. */
  readonly expiresAt: number;
}

export interface SealOptions {
  readonly now?: () => number;
  readonly ttlMs?: number;
}

export interface SealedState {
  readonly requestState: string;
  readonly state: ConsentState;
}

export type OpenFailure = 'forged' | 'expired' | 'mismatch' | 'malformed';

export type OpenResult =
  | { readonly ok: true; readonly state: ConsentState }
  | { readonly ok: false; readonly reason: OpenFailure };

function mac(key: KeyObject, payload: string): Buffer {
  return createHmac('sha256', key).update(`${VERSION}.${payload}`, 'utf8').digest();
}

export function sealRequestState(
  key: KeyObject,
  binding: ConsentBinding,
  opts: SealOptions = {},
): SealedState {
  const now = opts.now ?? Date.now;
  const state: ConsentState = {
    caller: binding.caller,
    tool: binding.tool,
    argumentsDigest: binding.argumentsDigest ?? argumentsDigest(binding.args),
    nonce: randomBytes(NONCE_BYTES).toString('base64url'),
    expiresAt: now() + (opts.ttlMs ?? REQUEST_STATE_TTL_MS),
  };
  const payload = Buffer.from(
    JSON.stringify({
      c: state.caller,
      t: state.tool,
      d: state.argumentsDigest,
      n: state.nonce,
      e: state.expiresAt,
    }),
    'utf8',
  ).toString('base64url');
  return {
    requestState: `${VERSION}.${payload}.${mac(key, payload).toString('base64url')}`,
    state,
  };
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The payload's fields, when the (already authenticated) JSON has the shape sealing writes. */
function parsePayload(payload: string): ConsentState | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const { c, t, d, n, e } = raw as Record<string, unknown>;
  if (typeof c !== 'string' || typeof t !== 'string' || typeof d !== 'string') return undefined;
  if (typeof n !== 'string' || typeof e !== 'number' || !Number.isSafeInteger(e)) return undefined;
  return { caller: c, tool: t, argumentsDigest: d, nonce: n, expiresAt: e };
}

/** Equal texts, in time that depends on their lengths only. */
function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The state `token` seals, when it is authentic, unexpired and bound to `expected`.
 * The checks run in that order, so a reason never tells an outsider more than "forged".
 */
export function openRequestState(
  key: KeyObject,
  token: unknown,
  expected: ConsentBinding,
  opts: { readonly now?: () => number } = {},
): OpenResult {
  // Before any work: a client chooses this text's length.
  if (typeof token !== 'string' || token.length > REQUEST_STATE_MAX_LENGTH)
    return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'malformed' };
  const [version, payload, tag] = parts as [string, string, string];
  if (version !== VERSION || !BASE64URL.test(payload) || !BASE64URL.test(tag))
    return { ok: false, reason: 'malformed' };
  const given = Buffer.from(tag, 'base64url');
  // The last character of a 32-byte mac carries two unused bits a decoder ignores; only
  // the one spelling is accepted, so a state has exactly one text.
  if (given.length !== MAC_BYTES || given.toString('base64url') !== tag)
    return { ok: false, reason: 'malformed' };
  if (!timingSafeEqual(given, mac(key, payload))) return { ok: false, reason: 'forged' };
  const state = parsePayload(payload);
  // Authentic yet unreadable: sealed by another version of this code under the same key.
  if (state === undefined) return { ok: false, reason: 'malformed' };
  if ((opts.now ?? Date.now)() >= state.expiresAt) return { ok: false, reason: 'expired' };
  // Every comparison runs, so the time taken does not say which one failed.
  const caller = sameText(state.caller, expected.caller);
  const tool = sameText(state.tool, expected.tool);
  const digest = sameText(
    state.argumentsDigest,
    expected.argumentsDigest ?? argumentsDigest(expected.args),
  );
  if (!(caller && tool && digest)) return { ok: false, reason: 'mismatch' };
  return { ok: true, state };
}
