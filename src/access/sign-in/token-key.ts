/**
 * The keys of the gateway as an authorization server (spec-language.md, "Sign-in for MCP
 * clients"), all derived from the one secret in `access token-key-env="V"`: every replica
 * given the same variable signs and accepts the same tokens and opens the same sealed
 * codes, with nothing shared at run time. HKDF-SHA-256 with a label per use, so a key
 * never serves two purposes:
 * - an Ed25519 key pair (the 32-byte seed is the derived bytes) that signs the access
 *   tokens; its public half is `/.well-known/jwks.json`, its `kid` the RFC 7638 thumbprint;
 * - an AES-256-GCM key that seals what the gateway hands out and takes back (sealed.ts).
 */
import {
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  hkdfSync,
  type KeyObject,
} from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { consentKeyFrom } from '../../engine/consent/consent-key.js';

export interface TokenKeys {
  /** Signs the gateway's access tokens (EdDSA). */
  readonly signing: KeyObject;
  /** Verifies them. */
  readonly verifying: KeyObject;
  /** The public key as a JWK, with `kid`, `alg`, `use`: what `/.well-known/jwks.json` lists. */
  readonly publicJwk: Readonly<JWK>;
  readonly kid: string;
  /** AES-256-GCM key of sealed.ts. */
  readonly sealing: KeyObject;
}

export type TokenKeysResult =
  | { readonly ok: true; readonly keys: TokenKeys }
  | { readonly ok: false; readonly message: string };

/** PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows it. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function derive(secret: KeyObject, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `mcp-beaver ${label}`, 32));
}

/** The keys from the secret itself (tests, and `tokenKeysFrom` once the text is read). */
export async function tokenKeysOf(secret: KeyObject): Promise<TokenKeys> {
  const seed = derive(secret, 'access token signing key v1');
  const signing = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const verifying = createPublicKey(signing);
  const jwk = verifying.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(jwk, 'sha256');
  return Object.freeze({
    signing,
    verifying,
    kid,
    publicJwk: Object.freeze({ ...jwk, kid, alg: 'EdDSA', use: 'sig' }),
    sealing: createSecretKey(derive(secret, 'sealing key v1')),
  });
}

/**
 * The keys from the variable's text (at least 32 bytes as hex or base64, read as the
 * confirm key is). The message names the variable and never its value.
 */
export async function tokenKeysFrom(
  variable: string,
  value: string | undefined,
): Promise<TokenKeysResult> {
  const read = consentKeyFrom(variable, value);
  if (!read.ok)
    return {
      ok: false,
      message: read.message.replace(
        `access confirm-key-env="${variable}"`,
        `access token-key-env="${variable}"`,
      ),
    };
  return { ok: true, keys: await tokenKeysOf(read.key) };
}
