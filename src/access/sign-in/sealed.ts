/**
 * What the gateway hands out and takes back without storing it (a registration, the
 * provider round trip's state, an authorization code, a refresh token, a browser session):
 * a JSON value sealed with AES-256-GCM under the key derived from `token-key-env`
 * (token-key.ts). The purpose is the additional authenticated data, so a value sealed for
 * one purpose never opens as another (a refresh token presented as a code, a state
 * presented as a session), and the expiry travels inside the seal.
 *
 * Text: base64url(iv ‖ ciphertext ‖ tag). Single use, where a purpose needs it (codes,
 * refresh tokens), is the caller's to enforce with the `jti` it puts inside.
 */
import { createCipheriv, createDecipheriv, randomBytes, type KeyObject } from 'node:crypto';

/** Every purpose a sealed value may have; each is its own AAD. */
export type SealPurpose =
  | 'client-registration'
  | 'provider-state'
  | 'consent'
  | 'authorization-code'
  | 'refresh-token'
  | 'browser-session'
  | 'provider-tokens'
  /** The provider's refresh token from a sign-in, in the gateway's refresh token only. */
  | 'provider-refresh'
  /** A connect link of `auth user` (connections/connect-routes.ts): caller and provider. */
  | 'connect-link'
  /** The provider round trip of a connection: caller, provider, PKCE verifier, jti. */
  | 'connect-state';

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Longer texts are refused unread: nothing the gateway seals comes near it. */
const MAX_TEXT = 16_384;

interface Envelope<T> {
  /** Expiry, epoch milliseconds. */
  readonly e: number;
  readonly v: T;
}

export class Sealer {
  constructor(
    private readonly key: KeyObject,
    private readonly now: () => number = Date.now,
  ) {}

  /** `value` sealed for `purpose`, opening until `ttlMs` from now. */
  seal<T>(purpose: SealPurpose, value: T, ttlMs: number): string {
    return this.sealUntil(purpose, value, this.now() + ttlMs);
  }

  /** `value` sealed for `purpose`, opening until `expiresAt` (epoch ms): a rotation keeps its end. */
  sealUntil<T>(purpose: SealPurpose, value: T, expiresAt: number): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(`mcp-beaver ${purpose} v1`, 'utf8'));
    const plain = Buffer.from(JSON.stringify({ e: expiresAt, v: value }), 'utf8');
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /**
   * The value sealed for `purpose`, or why not: `invalid` (not ours, another purpose,
   * tampered) or `expired`. The two are told apart only to word the refusal.
   */
  open<T>(
    purpose: SealPurpose,
    text: unknown,
  ): { ok: true; value: T; expiresAt: number } | { ok: false; reason: 'invalid' | 'expired' } {
    if (typeof text !== 'string' || text.length > MAX_TEXT || !/^[A-Za-z0-9_-]+$/.test(text))
      return { ok: false, reason: 'invalid' };
    const raw = Buffer.from(text, 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES + 2) return { ok: false, reason: 'invalid' };
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(`mcp-beaver ${purpose} v1`, 'utf8'));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
        decipher.final(),
      ]);
      const env = JSON.parse(plain.toString('utf8')) as Envelope<T>;
      if (typeof env.e !== 'number') return { ok: false, reason: 'invalid' };
      if (env.e <= this.now()) return { ok: false, reason: 'expired' };
      return { ok: true, value: env.v, expiresAt: env.e };
    } catch {
      return { ok: false, reason: 'invalid' };
    }
  }
}
