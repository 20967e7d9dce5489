/**
 * A stand-in authorization server for inbound OAuth tests: an RS256 and an ES256 key
 * pair (made with jose), a JWKS served on a real node:http server on 127.0.0.1:0 that
 * can be switched to answer 500, to hang, or be closed (connection refused), a count
 * of the JWKS fetches it saw, and token signing, including the forgeries an attacker
 * would try (`alg: none`, HS256 keyed with the public key).
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  exportJWK,
  exportSPKI,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';

export type JwksMode = 'up' | 'error' | 'hang';
export type SigningAlg = 'RS256' | 'ES256';

interface KeyPair {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly publicPem: string;
}

export interface SigningKeys {
  readonly RS256: KeyPair;
  readonly ES256: KeyPair;
}

export interface SignOptions {
  readonly alg?: SigningAlg;
  /** Defaults to the key's own kid; `null` leaves the header without a kid. */
  readonly kid?: string | null;
  /** Claims merged over the defaults (iss, aud, sub, iat, exp = now + 300 s). */
  readonly claims?: JWTPayload;
}

export interface JwksServer {
  /** The JWKS URI, for `oauth jwks-uri=`. */
  readonly url: string;
  readonly issuer: string;
  readonly audience: string;
  readonly keys: SigningKeys;
  /** GET requests for the JWKS received so far. */
  readonly fetches: number;
  /** 'up' serves the keys, 'error' answers 500, 'hang' never answers. */
  setMode(mode: JwksMode): void;
  /** A signed JWT with valid defaults that `opts.claims` may override. */
  sign(opts?: SignOptions): Promise<string>;
  /** The server closed: the URL then refuses connections. */
  close(): Promise<void>;
}

function b64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

async function keyPair(alg: SigningAlg): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const kid = `${alg.toLowerCase()}-test-key`;
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, privateKey, publicJwk, publicPem: await exportSPKI(publicKey) };
}

export async function generateSigningKeys(): Promise<SigningKeys> {
  const [RS256, ES256] = await Promise.all([keyPair('RS256'), keyPair('ES256')]);
  return { RS256, ES256 };
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** A JWT with `alg: none` and an empty signature, built by hand. */
export function unsignedToken(claims: JWTPayload): string {
  return `${b64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}.`;
}

/** An HS256 JWT whose HMAC secret is `secret` (e.g. the RSA public key's PEM or JWK). */
export function hmacToken(secret: string, claims: JWTPayload, kid?: string): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', ...(kid && { kid }) }));
  const payload = b64url(JSON.stringify(claims));
  const mac = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  return `${header}.${payload}.${b64url(mac)}`;
}

/** A JWT signed with one of `keys`; `base` and then `opts.claims` override the defaults. */
export function signToken(
  keys: SigningKeys,
  base: JWTPayload,
  opts: SignOptions = {},
): Promise<string> {
  const pair = keys[opts.alg ?? 'RS256'];
  const now = nowSeconds();
  const kid = opts.kid === undefined ? pair.kid : opts.kid;
  // A claim given as undefined is left out (e.g. a token without exp).
  const payload = Object.fromEntries(
    Object.entries({ sub: 'user-1', iat: now, exp: now + 300, ...base, ...opts.claims }).filter(
      ([, v]) => v !== undefined,
    ),
  ) as JWTPayload;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: pair.publicJwk.alg!, typ: 'JWT', ...(kid !== null && { kid }) })
    .sign(pair.privateKey);
}

export async function startJwks(
  opts: {
    issuer?: string;
    audience?: string;
    keys?: SigningKeys;
    mode?: JwksMode;
  } = {},
): Promise<JwksServer> {
  const keys = opts.keys ?? (await generateSigningKeys());
  const issuer = opts.issuer ?? 'https://idp.test.example';
  const audience = opts.audience ?? 'https://gateway.test.example/mcp';
  let mode: JwksMode = opts.mode ?? 'up';
  let fetches = 0;
  const sockets = new Set<Socket>();
  const body = JSON.stringify({ keys: [keys.RS256.publicJwk, keys.ES256.publicJwk] });
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/jwks.json') {
      res.statusCode = 404;
      res.end();
      return;
    }
    fetches++;
    if (mode === 'hang') return; // never answers; the socket is destroyed on close
    if (mode === 'error') {
      res.statusCode = 500;
      res.setHeader('content-type', 'application/json');
      res.end('{"error":"internal"}');
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(body);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    issuer,
    audience,
    keys,
    get fetches() {
      return fetches;
    },
    setMode(m) {
      mode = m;
    },
    sign: (o = {}) => signToken(keys, { iss: issuer, aud: audience }, o),
    close() {
      closed ??= new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}
