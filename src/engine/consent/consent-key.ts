/**
 * The key that seals confirmation request states (docs/spec-language.md, "Confirmation
 * and approval": `access confirm-key-env="<V>"`). The variable holds at least 32 random
 * bytes, written as hex or base64; without it each process draws its own key, and a
 * retry then has to reach the replica that asked.
 */
import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/** HMAC-SHA-256 gains nothing from longer keys, and shorter ones weaken it. */
export const CONSENT_KEY_MIN_BYTES = 32;

export type ConsentKeyResult =
  { readonly ok: true; readonly key: KeyObject } | { readonly ok: false; readonly message: string };

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** The bytes a hex or base64 (standard or URL-safe, padded or not) text spells, or undefined. */
function decodeKeyText(text: string): Buffer | undefined {
  // Hex first: a hex text is also valid base64, and whoever wrote it meant hex.
  if (HEX.test(text)) return Buffer.from(text, 'hex');
  if (!BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  // Node's decoder skips what it cannot read; re-encoding shows whether it read everything.
  const canonical = text.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return bytes.toString('base64url') === canonical ? bytes : undefined;
}

/**
 * The key held by `variable`. The message names the variable and never echoes its value.
 */
export function consentKeyFrom(variable: string, value: string | undefined): ConsentKeyResult {
  const where = `access confirm-key-env="${variable}"`;
  const text = value?.trim() ?? '';
  if (text === '')
    return {
      ok: false,
      message: `${where}: the variable ${variable} is not set; set it to at least ${CONSENT_KEY_MIN_BYTES} random bytes as hex or base64`,
    };
  const bytes = decodeKeyText(text);
  if (bytes === undefined)
    return {
      ok: false,
      message: `${where}: ${variable} is neither hex nor base64; it must hold at least ${CONSENT_KEY_MIN_BYTES} random bytes as hex or base64`,
    };
  if (bytes.length < CONSENT_KEY_MIN_BYTES)
    return {
      ok: false,
      message: `${where}: ${variable} holds ${bytes.length} bytes; it must hold at least ${CONSENT_KEY_MIN_BYTES} random bytes as hex or base64`,
    };
  return { ok: true, key: createSecretKey(bytes) };
}

/** The per-process key used when no variable is named. */
export function randomConsentKey(): KeyObject {
  return createSecretKey(randomBytes(CONSENT_KEY_MIN_BYTES));
}
