/**
 * Inbound access for both surfaces (spec-language.md, "access"): who is calling, from
 * `Authorization: Bearer` (never the query string; with `sign-in`, the approvals and
 * confirmations APIs also take the pages' session cookie), and the RFC 6750/9728
 * challenges that tell a client where to get a token. Without an `access` block
 * every caller is anonymous and holds every scope. With `oauth` each toolset URL is a
 * protected resource of its own (spec-language.md, "Served at `/mcp/<toolset>`"): its
 * metadata URL in the challenges, and its URL accepted as a token's audience there.
 */
import type { FastifyRequest } from 'fastify';
import type { Env } from '../process/env.js';
import { ANONYMOUS, type Caller } from '../engine/caller.js';
import { engineError, type EngineError } from '../engine/error-catalogue.js';
import type { AccessDescriptor } from '../compiler/descriptor.js';
import { loadApiKeys, type ApiKeys } from './api-keys.js';
import type { OAuthVerifier } from './oauth.js';
import type { SignInServices } from './sign-in/sign-in-services.js';
import { preparePageSessions } from './sign-in/page-caller.js';
import type { SealedBrowserSession } from './sign-in/sign-in-types.js';

export type CallerResult =
  | { readonly ok: true; readonly caller: Caller }
  | { readonly ok: false; readonly error: EngineError; readonly challenge: string };

export interface AccessControl {
  readonly enabled: boolean;
  readonly oauth: boolean;
  /** Every raw credential the gateway knows (API keys), for log redaction. */
  readonly secrets: readonly string[];
  /** Synchronous unless a token has to be verified (OAuth): most requests need no promise. */
  resolve(req: FastifyRequest): CallerResult | Promise<CallerResult>;
  /**
   * As `resolve`, for the APIs of the gateway's own pages (approvals, confirmations): with
   * `sign-in` and no Authorization header, the browser's session cookie is a credential
   * too (sign-in/page-caller.ts). A header, when sent, always decides.
   */
  resolvePage(req: FastifyRequest): CallerResult | Promise<CallerResult>;
  /** With `sign-in`: the person this browser signed in as (the pages' session cookie). */
  browserSession(req: FastifyRequest): SealedBrowserSession | undefined;
  /** The WWW-Authenticate value for a 403: the scopes a grant needs. */
  scopeChallenge(req: FastifyRequest, required: readonly string[]): string;
  /** RFC 9728 metadata URL of the MCP endpoint (or toolset) this request is addressed to. */
  metadataUrl(req: FastifyRequest): string;
  /** The gateway's base URL as this request reaches it (--public-url when set). */
  baseUrl(req: FastifyRequest): string;
}

export const METADATA_PATH = '/.well-known/oauth-protected-resource';

export interface AccessOptions {
  readonly env: Env;
  /** The gateway's public base URL (behind a proxy); otherwise taken from Host. */
  readonly publicUrl?: string;
  /** Paths the MCP endpoint lives at, for the metadata URL. */
  readonly mcpPath: string;
  /** The spec's toolset names: each is served at `<mcpPath>/<name>`. */
  readonly toolsets: readonly string[];
  /** With `sign-in`: the keys of the tokens the gateway issues itself. */
  readonly signIn?: SignInServices;
}

export function publicBase(req: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  return `${req.protocol}://${req.headers.host ?? 'localhost'}`;
}

function quote(v: string): string {
  return `"${v.replace(/["\\]/g, '')}"`;
}

export async function createAccessControl(
  access: AccessDescriptor | undefined,
  opts: AccessOptions,
): Promise<AccessControl> {
  const baseUrl = (req: FastifyRequest): string => publicBase(req, opts.publicUrl);
  const toolsetOf = toolsetOfRequest(opts.mcpPath, opts.toolsets);
  const metadataUrl = (req: FastifyRequest): string => {
    const toolset = toolsetOf(req);
    const path = toolset === undefined ? opts.mcpPath : `${opts.mcpPath}/${toolset}`;
    return `${baseUrl(req)}${METADATA_PATH}${path}`;
  };
  // The metadata is served only with an authorization server to name (metadata-routes.ts):
  // without one, a challenge pointing at it would point at a 404.
  const withMetadata = (req: FastifyRequest, params: readonly string[]): string => {
    const all =
      access?.oauth || opts.signIn
        ? [...params, `resource_metadata=${quote(metadataUrl(req))}`]
        : params;
    return all.length > 0 ? `Bearer ${all.join(', ')}` : 'Bearer';
  };
  const scopeChallenge = (req: FastifyRequest, required: readonly string[]): string =>
    withMetadata(req, ['error="insufficient_scope"', `scope=${quote(required.join(' '))}`]);
  if (!access) {
    // Anonymous callers are told apart by address (rate limits, audit lines).
    const anonymous = (req: FastifyRequest): CallerResult => ({
      ok: true,
      caller: { ...ANONYMOUS, id: `ip:${req.ip}` },
    });
    return {
      enabled: false,
      oauth: false,
      secrets: [],
      resolve: anonymous,
      resolvePage: anonymous,
      browserSession: () => undefined,
      scopeChallenge,
      metadataUrl,
      baseUrl,
    };
  }
  const keys: ApiKeys | undefined =
    access.apiKeys.length > 0 ? loadApiKeys(access, opts.env) : undefined;
  // jose is loaded only by a spec that verifies tokens: start-up pays for what it uses.
  const verifier: OAuthVerifier | undefined = access.oauth
    ? (await import('./oauth.js')).createOAuthVerifier(access.oauth)
    : undefined;
  // With sign-in the gateway checks the tokens it issued itself, by its own key's `kid`.
  const signIn = opts.signIn;
  const own = signIn ? await import('./sign-in/access-tokens.js') : undefined;
  const challenge = (req: FastifyRequest, error?: string): string =>
    withMetadata(req, error ? [`error=${quote(error)}`] : []);
  const refuse = (req: FastifyRequest, message: string, error?: string): CallerResult => ({
    ok: false,
    error: engineError('UNAUTHENTICATED', message),
    challenge: challenge(req, error),
  });

  // The process's sign-in services outlive a reload; the cookie is read only while the
  // spec served now has `sign-in`.
  const pages =
    access.signIn && opts.signIn ? preparePageSessions(opts.signIn.sealer, baseUrl) : undefined;

  const control: AccessControl = {
    enabled: true,
    oauth: verifier !== undefined || signIn !== undefined,
    secrets: [...(keys?.secrets ?? []), ...(signIn?.secrets ?? [])],
    resolve(req) {
      const header = req.headers.authorization;
      if (header === undefined || header === '')
        return refuse(req, 'this gateway needs a bearer token: send Authorization: Bearer <token>');
      const m = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
      if (!m)
        return refuse(req, 'the Authorization header is not a bearer token', 'invalid_request');
      const token = m[1]!;
      const byKey = keys?.match(token);
      if (byKey) return { ok: true, caller: byKey };
      if (signIn && own && token.split('.').length === 3 && own.isOwnToken(signIn.keys, token)) {
        const base = baseUrl(req);
        const toolset = toolsetOf(req);
        return own
          .verifyOwnToken(
            signIn.keys,
            token,
            {
              issuer: base,
              mcpUrl: `${base}${opts.mcpPath}`,
              ...(toolset !== undefined && { toolset }),
            },
            signIn.sealer,
          )
          .then((checked) =>
            checked.ok ? checked : refuse(req, `invalid token: ${checked.reason}`, 'invalid_token'),
          );
      }
      if (verifier && token.split('.').length === 3) {
        return verifier
          .verify(token, toolsetOf(req))
          .then((checked) =>
            checked.ok ? checked : refuse(req, `invalid token: ${checked.reason}`, 'invalid_token'),
          );
      }
      return refuse(req, 'invalid token', 'invalid_token');
    },
    resolvePage(req) {
      const header = req.headers.authorization;
      if (!pages || (header !== undefined && header !== '')) return control.resolve(req);
      const who = pages.callerOf(req);
      // No cookie, or one that does not open: refused as a request with no credential is.
      if (who === undefined) return control.resolve(req);
      if (!who.ok) return { ok: false, error: who.error, challenge: challenge(req) };
      return who;
    },
    browserSession: (req) => pages?.sessionOf(req),
    scopeChallenge,
    metadataUrl,
    baseUrl,
  };
  return control;
}

/**
 * The toolset a request is addressed to: its path is `<mcpPath>/<name>` exactly (a query
 * aside) and `name` is one of the spec's. Read from the raw path, so an escaped or
 * otherwise odd spelling is no toolset here and gets `/mcp`'s audience and metadata:
 * the route may still serve it, but never with more than `/mcp` would accept.
 */
function toolsetOfRequest(
  mcpPath: string,
  toolsets: readonly string[],
): (req: FastifyRequest) => string | undefined {
  const names = new Set(toolsets);
  const prefix = `${mcpPath}/`;
  return (req) => {
    const url = req.url;
    if (names.size === 0 || !url.startsWith(prefix)) return undefined;
    const query = url.indexOf('?');
    const name = url.slice(prefix.length, query === -1 ? undefined : query);
    return names.has(name) ? name : undefined;
  };
}
