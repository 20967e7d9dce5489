/**
 * The sealed `Mcp-Session-Id` of the 2025 era (docs/spec-language.md, "`confirm` in the
 * 2025 era"): a stateless server forgets `initialize`, so the answer to it carries what
 * the client declared, sealed, and the client hands it back on every later request.
 * Nothing is stored; every replica holding the same consent key opens it.
 *
 * Token: `s1.` + base64url(iv ‖ AES-256-GCM(plain) ‖ tag), the key derived by HKDF-SHA-256
 * from the consent key (so a session id and a requestState never share a key). The
 * 23-byte plain text: format (1), protocol version index (1), elicitation modes (1: form,
 * 2: url), expiry in epoch seconds (4), and 16 bytes of a digest of the caller's identity:
 * another caller presenting it is refused, and the client reads nothing but noise.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import type { Caller } from '../../engine/caller.js';
import { LEGACY_VERSIONS } from '../../mcp-wire/versions.js';

/** How long a session id is honoured; then the client initializes again (on the 404). */
export const SESSION_TTL_MS = 24 * 60 * 60_000;

const PREFIX = 's1.';
const FORMAT = 1;
const AAD = Buffer.from('mcp-beaver session id v1', 'utf8');
const IV_BYTES = 12;
const TAG_BYTES = 16;
const DIGEST_BYTES = 16;
const PLAIN_BYTES = 3 + 4 + DIGEST_BYTES;
const TOKEN_LENGTH = PREFIX.length + Math.ceil(((IV_BYTES + PLAIN_BYTES + TAG_BYTES) * 4) / 3);
const FORM = 1;
const URL_MODE = 2;
/** Opened ids kept: a client sends the same id on every request, so one AEAD open serves many. */
const CACHE_SIZE = 1024;

/** What a client declared in `initialize`, as its session id carries it. */
export interface SessionCaps {
  /** The negotiated protocol version. */
  readonly version: string;
  /** The client answers form elicitation (an empty `elicitation` object means form). */
  readonly form: boolean;
  /** The client answers URL-mode elicitation. */
  readonly url: boolean;
}

interface Opened extends SessionCaps {
  readonly expiresAt: number;
  readonly callerDigest: Buffer;
  /** The caller id last found to match the digest: the next request by it skips the hash. */
  matchedCaller?: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The elicitation modes an `initialize`'s capabilities declare (2025-06-18 and later). */
export function declaredModes(version: string, capabilities: unknown): SessionCaps {
  const elicitation =
    isObject(capabilities) && isObject(capabilities.elicitation)
      ? capabilities.elicitation
      : undefined;
  // 2025-03-26 has no elicitation at all: whatever it says, it cannot be asked.
  if (elicitation === undefined || version === '2025-03-26')
    return { version, form: false, url: false };
  const modes = Object.keys(elicitation).length;
  return {
    version,
    form: modes === 0 || isObject(elicitation.form),
    url: isObject(elicitation.url),
  };
}

/** A digest of the caller's identity: what a session id and an open question are bound to. */
export function callerDigest(caller: Caller): Buffer {
  return createHash('sha256')
    .update('mcp-beaver caller\0', 'utf8')
    .update(caller.id, 'utf8')
    .digest()
    .subarray(0, DIGEST_BYTES);
}

let lastCaller: string | undefined;
let lastKey = '';

/**
 * The caller digest as hex: the key of a caller's open questions (open-questions.ts). The
 * last one is kept: the answer POST comes from the caller that was just asked.
 */
export function callerKey(caller: Caller): string {
  if (caller.id !== lastCaller) {
    lastKey = callerDigest(caller).toString('hex');
    lastCaller = caller.id;
  }
  return lastKey;
}

/** Seals and opens session ids under one consent key. */
export class SessionSeal {
  private readonly key: KeyObject;
  private readonly cache = new Map<string, Opened>();

  constructor(
    consentKey: KeyObject,
    private readonly now: () => number = Date.now,
  ) {
    const derived = hkdfSync('sha256', consentKey, Buffer.alloc(0), 'mcp-beaver session id', 32);
    this.key = createSecretKey(Buffer.from(derived));
  }

  /** The session id for `caller` after it initialized declaring `caps`. */
  seal(caps: SessionCaps, caller: Caller): string {
    const plain = Buffer.alloc(PLAIN_BYTES);
    plain[0] = FORMAT;
    plain[1] = Math.max(0, (LEGACY_VERSIONS as readonly string[]).indexOf(caps.version));
    plain[2] = (caps.form ? FORM : 0) | (caps.url ? URL_MODE : 0);
    plain.writeUInt32BE(Math.floor((this.now() + SESSION_TTL_MS) / 1000), 3);
    callerDigest(caller).copy(plain, 7);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(AAD);
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return PREFIX + sealed.toString('base64url');
  }

  /**
   * What `token` carries when it is authentic, unexpired and `caller`'s; undefined
   * otherwise (forged, stale or another caller's: the route answers 404 to all three).
   */
  open(token: string, caller: Caller): SessionCaps | undefined {
    let opened = this.cache.get(token);
    if (opened === undefined) {
      opened = this.decrypt(token);
      if (opened === undefined) return undefined;
      if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(token, opened);
    }
    if (this.now() >= opened.expiresAt) {
      this.cache.delete(token);
      return undefined;
    }
    if (opened.matchedCaller !== caller.id) {
      if (!callerDigest(caller).equals(opened.callerDigest)) return undefined;
      opened.matchedCaller = caller.id;
    }
    return opened;
  }

  private decrypt(token: string): Opened | undefined {
    // Before any work: the client chooses this text.
    if (token.length !== TOKEN_LENGTH || !token.startsWith(PREFIX)) return undefined;
    const bytes = Buffer.from(token.slice(PREFIX.length), 'base64url');
    if (bytes.length !== IV_BYTES + PLAIN_BYTES + TAG_BYTES) return undefined;
    let plain: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(AAD);
      decipher.setAuthTag(bytes.subarray(IV_BYTES + PLAIN_BYTES));
      plain = Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, IV_BYTES + PLAIN_BYTES)),
        decipher.final(),
      ]);
    } catch {
      return undefined;
    }
    const version = LEGACY_VERSIONS[plain[1]!];
    if (plain[0] !== FORMAT || version === undefined) return undefined;
    return {
      version,
      form: (plain[2]! & FORM) !== 0,
      url: (plain[2]! & URL_MODE) !== 0,
      expiresAt: plain.readUInt32BE(3) * 1000,
      callerDigest: Buffer.from(plain.subarray(7)),
    };
  }
}

const seals = new WeakMap<KeyObject, SessionSeal>();

/** The seal of a consent key: one per key, so its cache serves every request. */
export function sessionSealOf(consentKey: KeyObject): SessionSeal {
  let seal = seals.get(consentKey);
  if (!seal) seals.set(consentKey, (seal = new SessionSeal(consentKey)));
  return seal;
}
