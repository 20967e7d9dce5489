/**
 * The keys of connected accounts (spec-language.md, "On whose behalf (upstream
 * identity)", `auth user`), derived from the one secret in `access token-key-env="V"` as
 * the sign-in's keys are (access/sign-in/token-key.ts), each with a label of its own so
 * that no key serves two purposes:
 * - the AES-256-GCM key that encrypts every stored token set (connection-store.ts);
 * - the HMAC key that turns a caller's id into the record's key (nothing in Redis names
 *   a caller);
 * - the key of the Sealer that seals the connect links and the provider round trip's
 *   `state` (connect-routes.ts), so a link or a state never opens as a sign-in value.
 */
import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { consentKeyFrom } from '../engine/consent/consent-key.js';

export interface ConnectionKeys {
  /** Encrypts the token sets at rest. */
  readonly store: KeyObject;
  /** Seals connect links and states. */
  readonly sealing: KeyObject;
  /** HMACs the caller's id into the record's key, so the key names nobody. */
  readonly index: KeyObject;
}

function derive(secret: KeyObject, label: string): KeyObject {
  return createSecretKey(
    Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `mcp-beaver ${label}`, 32)),
  );
}

export function connectionKeysOf(secret: KeyObject): ConnectionKeys {
  return Object.freeze({
    store: derive(secret, 'connection store key v1'),
    sealing: derive(secret, 'connect sealing key v1'),
    index: derive(secret, 'connection index key v1'),
  });
}

/** The keys from the variable's text, or a message naming the variable (never its value). */
export function connectionKeysFrom(
  variable: string,
  value: string | undefined,
): { ok: true; keys: ConnectionKeys } | { ok: false; message: string } {
  const read = consentKeyFrom(variable, value);
  if (!read.ok)
    return {
      ok: false,
      message: read.message.replace(
        `access confirm-key-env="${variable}"`,
        `access token-key-env="${variable}" (auth user)`,
      ),
    };
  return { ok: true, keys: connectionKeysOf(read.key) };
}
