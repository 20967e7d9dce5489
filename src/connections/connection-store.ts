/**
 * Where connected accounts are kept (spec-language.md, `auth user`): one record per
 * provider and caller, its token set encrypted with AES-256-GCM under the key derived
 * for it (connection-keys.ts). The record's key is `<provider>:<HMAC of the caller id>`,
 * and that key is the GCM's additional data too, so a record copied under another
 * caller's key does not open. In memory by default; in Redis with `limits redis-env`
 * (redis-connection-store.ts), where every replica sees the same connections.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { ConnectionKeys } from './connection-keys.js';
import { asTokenSet, type TokenSet } from './token-set.js';

export interface ConnectionStore {
  get(provider: string, callerId: string): Promise<TokenSet | undefined>;
  put(provider: string, callerId: string, set: TokenSet): Promise<void>;
  /** True when there was a connection to remove. */
  remove(provider: string, callerId: string): Promise<boolean>;
  /**
   * The right to refresh this connection, held by one replica at a time (a rotating
   * refresh token spent twice makes the provider revoke the grant): its release, or
   * undefined while another holds it.
   */
  lockRefresh(provider: string, callerId: string): Promise<(() => Promise<void>) | undefined>;
  close(): Promise<void>;
}

/** Where the encrypted records live: text by key. */
export interface RecordBackend {
  read(key: string): Promise<string | undefined>;
  /** `ttlMs` undefined: kept until removed. */
  write(key: string, value: string, ttlMs: number | undefined): Promise<void>;
  delete(key: string): Promise<boolean>;
  /** Takes `key`'s lock for `ttlMs` unless held: its release, or undefined. */
  lock(key: string, ttlMs: number): Promise<(() => Promise<void>) | undefined>;
  close(): Promise<void>;
}

/** Longer than a token request may take (token-request.ts), so a lock outlives its refresh. */
export const REFRESH_LOCK_MS = 15_000;

const IV_BYTES = 12;
const TAG_BYTES = 16;
/** A connection that can be refreshed is kept this long after its last refresh. */
export const REFRESHABLE_TTL_MS = 90 * 24 * 3600_000;

/** The encrypting store over any record backend. */
export function encryptedStore(
  keys: ConnectionKeys,
  backend: RecordBackend,
  now: () => number = Date.now,
): ConnectionStore {
  const slot = (provider: string, callerId: string): string =>
    `${provider}:${createHmac('sha256', keys.index).update(callerId, 'utf8').digest('base64url')}`;
  const aad = (key: string): Buffer => Buffer.from(`mcp-beaver connection v1 ${key}`, 'utf8');
  const seal = (key: string, set: TokenSet): string => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', keys.store, iv);
    cipher.setAAD(aad(key));
    const body = Buffer.concat([cipher.update(JSON.stringify(set), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  };
  const open = (key: string, text: string): TokenSet | undefined => {
    const raw = Buffer.from(text, 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES + 2) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', keys.store, raw.subarray(0, IV_BYTES));
      decipher.setAAD(aad(key));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return asTokenSet(JSON.parse(plain.toString('utf8')));
    } catch {
      // Another key (token-key-env changed), tampered, or moved: no connection.
      return undefined;
    }
  };
  return {
    async get(provider, callerId) {
      const key = slot(provider, callerId);
      const text = await backend.read(key);
      return text === undefined ? undefined : open(key, text);
    },
    async put(provider, callerId, set) {
      const key = slot(provider, callerId);
      // A set that cannot be refreshed is worth nothing once its token expired.
      const ttl =
        set.refreshToken !== undefined
          ? REFRESHABLE_TTL_MS
          : set.expiresAt !== undefined
            ? Math.max(1_000, set.expiresAt - now())
            : undefined;
      await backend.write(key, seal(key, set), ttl);
    },
    remove: (provider, callerId) => backend.delete(slot(provider, callerId)),
    lockRefresh: (provider, callerId) =>
      backend.lock(`${slot(provider, callerId)}:refreshing`, REFRESH_LOCK_MS),
    close: () => backend.close(),
  };
}

/** Records in this process's memory (lost at restart; one replica only). */
export function memoryRecords(now: () => number = Date.now): RecordBackend {
  const records = new Map<string, { value: string; until: number }>();
  return {
    async read(key) {
      const r = records.get(key);
      if (!r) return undefined;
      if (r.until <= now()) {
        records.delete(key);
        return undefined;
      }
      return r.value;
    },
    async write(key, value, ttlMs) {
      records.set(key, { value, until: ttlMs === undefined ? Infinity : now() + ttlMs });
    },
    async delete(key) {
      return records.delete(key);
    },
    // One process: the services' single flight already lets one refresh run at a time.
    lock: async () => async () => undefined,
    async close() {
      records.clear();
    },
  };
}
