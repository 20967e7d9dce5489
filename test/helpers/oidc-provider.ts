/**
 * A real OpenID provider for the sign-in tests (issue 42): `oidc-provider` on
 * 127.0.0.1:0, as a company's Entra ID or Okta tenant stands to the gateway. It knows one
 * confidential client, the gateway's, and lets no other register. People are declared by
 * the test with the claims their ID tokens carry (`roles` among them). The login and
 * consent prompts are answered by the harness for the person the test names next
 * (`signInAs`), so a test plays the browser by following redirects (`Browser`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import Provider, { errors, type Adapter, type Configuration } from 'oidc-provider';

export interface Person {
  readonly sub: string;
  readonly name?: string;
  readonly email?: string;
  readonly roles?: readonly string[];
}

export interface OidcProviderOptions {
  /** The redirect URIs registered for the gateway's client. */
  readonly redirectUris: readonly string[];
  readonly people?: readonly Person[];
  readonly clientId?: string;
  readonly clientSecret?: string;
  /**
   * Upstream credentials (issue 43): confidential clients a gateway uses at the token
   * endpoint as itself (`client_credentials`, built into oidc-provider) or to exchange a
   * caller's token (RFC 8693, registered by this harness).
   */
  readonly serviceClients?: readonly ServiceClient[];
  /** APIs by audience (an absolute URI) and the scopes each knows: their tokens are JWTs. */
  readonly apis?: Readonly<Record<string, string>>;
  /**
   * Connected accounts (issue 43): the client may use the refresh_token grant and every
   * code is answered with a refresh token too (rotated on each use).
   */
  readonly refreshTokens?: boolean;
  /** Seconds an access token lives, asked per token (default 3600). */
  readonly accessTokenTtl?: () => number;
}

export interface ServiceClient {
  readonly id: string;
  readonly secret: string;
  readonly grantTypes: readonly (
    'client_credentials' | typeof TOKEN_EXCHANGE | typeof JWT_BEARER
  )[];
}

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** Microsoft Entra ID's on-behalf-of flow rides this grant (with requested_token_use). */
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** How long the tokens this provider issues for APIs live. */
export const API_TOKEN_TTL_S = 600;

export interface TestOidcProvider {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Who the next login prompt signs in (default: the first person). */
  signInAs(sub: string): void;
  /** Adds a redirect URI to the gateway's client (a gateway whose port is known only now). */
  allowRedirect(uri: string): Promise<void>;
  /** Requests the provider received, by path: a test asserts what reached it. */
  readonly seen: string[];
  /** Every grant_type the token endpoint was asked for, in order (a test counts requests). */
  readonly tokenRequests: string[];
  /**
   * An access token this provider issued to `sub` (signed with its key, verifiable with
   * its JWKS): the token a person's client holds and presents to the gateway.
   */
  issueUserToken(
    sub: string,
    opts?: { audience?: string; scope?: string; clientId?: string; expiresInS?: number },
  ): Promise<string>;
  close(): Promise<void>;
}

export async function startOidcProvider(opts: OidcProviderOptions): Promise<TestOidcProvider> {
  const people = new Map((opts.people ?? [{ sub: 'alice' }]).map((p) => [p.sub, p]));
  let next = [...people.keys()][0]!;
  const clientId = opts.clientId ?? 'mcp-beaver-gateway';
  const clientSecret = opts.clientSecret ?? 'provider-client-secret-0123456789abcdef';
  const redirectUris = [...opts.redirectUris];
  const seen: string[] = [];
  const tokenRequests: string[] = [];
  const apis = opts.apis ?? {};

  const server: Server = createServer();
  // Longer than any test: a reused connection the server has just timed out would be
  // ECONNRESET on a loaded machine (node's default is 5 s).
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const keys = await generateKeyPair('RS256', { extractable: true });
  const configuration: Configuration = {
    // Scope-granted claims go into the ID token: the gateway reads roles from there.
    conformIdTokenClaims: false,
    claims: {
      openid: ['sub', 'roles'],
      profile: ['name'],
      email: ['email'],
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: false },
      // Only a provider for upstream credentials turns these on: the sign-in tests run
      // against the provider as it was.
      clientCredentials: { enabled: opts.apis !== undefined },
      // Tokens for an API are JWTs with the API as audience. The gateway names the API in
      // `audience` (Auth0's spelling), which oidc-provider does not know: it is read from the
      // form as the resource indicator (RFC 8707) when no `resource` is given.
      resourceIndicators: {
        enabled: opts.apis !== undefined,
        defaultResource: (ctx, _client, oneOf) =>
          oneOf ?? (ctx.oidc.body as { audience?: string } | undefined)?.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          const scope = apis[resource];
          if (scope === undefined) throw new errors.InvalidTarget();
          return {
            scope,
            audience: resource,
            accessTokenFormat: 'jwt',
            accessTokenTTL: API_TOKEN_TTL_S,
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    clients: (opts.serviceClients ?? []).map((c) => ({
      client_id: c.id,
      client_secret: c.secret,
      grant_types: [...c.grantTypes],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    ...(opts.refreshTokens && { issueRefreshToken: () => true, rotateRefreshToken: () => true }),
    findAccount: (_ctx, id) => {
      const person = people.get(id);
      if (!person) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          ...(person.name !== undefined && { name: person.name }),
          ...(person.email !== undefined && { email: person.email }),
          ...(person.roles !== undefined && { roles: [...person.roles] }),
        }),
      };
    },
    // Keys of this run, so no two runs (or a fixed key in the library) sign alike.
    jwks: {
      keys: [
        {
          ...(await exportJWK(keys.privateKey)),
          kid: 'test-provider-key',
          alg: 'RS256',
          use: 'sig',
        },
      ],
    },
    ttl: {
      Session: 3600,
      Interaction: 600,
      Grant: 3600,
      AccessToken: opts.accessTokenTtl ? () => opts.accessTokenTtl!() : 3600,
      IdToken: 3600,
      AuthorizationCode: 60,
      ...(opts.refreshTokens && { RefreshToken: 86_400 }),
    },
  };
  const provider = new Provider(issuer, configuration);
  provider.on(
    'grant.success',
    (ctx) => void tokenRequests.push(String(ctx.oidc.params?.grant_type)),
  );
  provider.on('grant.error', (ctx) => void tokenRequests.push(String(ctx.oidc.params?.grant_type)));
  const signUserToken = (
    claims: Record<string, unknown>,
    sub: string,
    audience: string,
    expiresInS: number,
  ): Promise<string> =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'test-provider-key', typ: 'at+jwt' })
      .setIssuer(issuer)
      .setSubject(sub)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + expiresInS)
      .setJti(crypto.randomUUID())
      .sign(keys.privateKey);
  // RFC 8693: a subject token this provider issued (its signature, issuer and expiry
  // checked) becomes a token for one API, narrowed to the scopes asked and known to it;
  // `act` names the client that exchanged it.
  if (opts.apis !== undefined)
    provider.registerGrantType(
      TOKEN_EXCHANGE,
      async (ctx) => {
        const p = ctx.oidc.params as Record<string, string | undefined>;
        // A subject token is one this provider issued: a JWT access token or ID token it
        // signed (signature, issuer, expiry), or one of its own opaque access tokens.
        const type = p.subject_token_type;
        const subject = p.subject_token ?? '';
        let sub: string | undefined;
        if (
          type === 'urn:ietf:params:oauth:token-type:access_token' ||
          type === 'urn:ietf:params:oauth:token-type:id_token'
        ) {
          if (subject.split('.').length === 3) {
            sub = await jwtVerify(subject, keys.publicKey, { issuer, algorithms: ['RS256'] }).then(
              ({ payload }) => String(payload.sub),
              () => undefined,
            );
          } else if (type.endsWith(':access_token')) {
            const found = await provider.AccessToken.find(subject);
            sub = found?.accountId;
          }
        } else throw new errors.InvalidRequest('unsupported subject_token_type');
        if (sub === undefined) throw new errors.InvalidGrant('subject_token is not valid');
        const audience = p.audience ?? '';
        const known = apis[audience];
        if (known === undefined) throw new errors.InvalidTarget();
        const knownSet = new Set(known.split(' '));
        const scope = (p.scope ?? '')
          .split(' ')
          .filter((s) => knownSet.has(s))
          .join(' ');
        const token = await signUserToken(
          { scope, client_id: ctx.oidc.client!.clientId, act: { sub: ctx.oidc.client!.clientId } },
          sub,
          audience,
          API_TOKEN_TTL_S,
        );
        ctx.body = {
          access_token: token,
          issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          token_type: 'Bearer',
          expires_in: API_TOKEN_TTL_S,
          scope,
        };
      },
      [
        'subject_token',
        'subject_token_type',
        'requested_token_type',
        'audience',
        'scope',
        'resource',
      ],
    );
  // Entra ID's on-behalf-of, as Entra answers it: the assertion is a user token this
  // provider signed, `requested_token_use` must be on_behalf_of, and the API is asked for
  // by `scope` "<API>/.default", which grants every scope the API has.
  if (opts.apis !== undefined)
    provider.registerGrantType(
      JWT_BEARER,
      async (ctx) => {
        const p = ctx.oidc.params as Record<string, string | undefined>;
        if (p.requested_token_use !== 'on_behalf_of')
          throw new errors.InvalidRequest('requested_token_use must be on_behalf_of');
        const sub = await jwtVerify(p.assertion ?? '', keys.publicKey, {
          issuer,
          algorithms: ['RS256'],
        }).then(
          ({ payload }) => String(payload.sub),
          () => undefined,
        );
        if (sub === undefined) throw new errors.InvalidGrant('assertion is not valid');
        const scope = p.scope ?? '';
        const audience = scope.endsWith('/.default') ? scope.slice(0, -'/.default'.length) : '';
        const known = apis[audience];
        if (known === undefined) throw new errors.InvalidScope('unknown API', scope);
        const token = await signUserToken(
          { scope: known, client_id: ctx.oidc.client!.clientId },
          sub,
          audience,
          API_TOKEN_TTL_S,
        );
        ctx.body = {
          access_token: token,
          token_type: 'Bearer',
          expires_in: API_TOKEN_TTL_S,
          scope: known,
        };
      },
      ['assertion', 'requested_token_use', 'scope'],
    );
  // The gateway's client lives in the provider's store rather than its static list: the
  // static list is read once, and a gateway's redirect URI is known only once it listens.
  // Registration stays off: nobody else can add a client.
  const storeClient = async (): Promise<void> => {
    if (redirectUris.length === 0) return;
    // @types/oidc-provider leaves the model's adapter out; oidc-provider 9 has it.
    const store = (provider.Client as unknown as { adapter: Adapter }).adapter;
    await store.upsert(clientId, {
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [...redirectUris],
      grant_types: opts.refreshTokens
        ? ['authorization_code', 'refresh_token']
        : ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
  };
  await storeClient();
  const handler = provider.callback();

  server.on('request', (req, res) => {
    seen.push(new URL(req.url ?? '/', issuer).pathname);
    const m = /^\/interaction\/([^/?]+)/.exec(req.url ?? '');
    if (!m) return void handler(req, res);
    // The person's login and consent, answered as the test said.
    void (async () => {
      try {
        const details = await provider.interactionDetails(req, res);
        const grant = new provider.Grant({
          accountId: next,
          clientId: String(details.params.client_id),
        });
        grant.addOIDCScope(String(details.params.scope ?? 'openid'));
        const grantId = await grant.save();
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: next }, consent: { grantId } },
          { mergeWithLastSubmission: false },
        );
      } catch (err) {
        res.statusCode = 500;
        res.end(String(err));
      }
    })();
  });

  return {
    issuer,
    clientId,
    clientSecret,
    seen,
    tokenRequests,
    issueUserToken: (sub, o = {}) =>
      signUserToken(
        { scope: o.scope ?? 'openid', client_id: o.clientId ?? 'someones-agent' },
        sub,
        o.audience ?? 'http://127.0.0.1/mcp',
        o.expiresInS ?? 3600,
      ),
    signInAs(sub) {
      if (!people.has(sub)) throw new Error(`no person ${sub} at the test provider`);
      next = sub;
    },
    async allowRedirect(uri) {
      redirectUris.push(uri);
      await storeClient();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A browser for the tests: follows redirects, keeps cookies per host (a browser's cookies
 * are not told apart by port) and answers with the last page. Forms are submitted by the
 * test (`post`).
 */
export class Browser {
  private readonly jar = new Map<string, Map<string, string>>();
  /** Every URL visited, in order: a test asserts where the browser went. */
  readonly visited: string[] = [];

  private cookieHeader(url: URL): string | undefined {
    const cookies = this.jar.get(url.hostname);
    if (!cookies || cookies.size === 0) return undefined;
    return [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(url: URL, res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const cookies = this.jar.get(url.hostname) ?? new Map<string, string>();
      this.jar.set(url.hostname, cookies);
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (expired) cookies.delete(name);
      else cookies.set(name, value);
    }
  }

  /** The cookie `name` this browser holds for `host`. */
  cookie(host: string, name: string): string | undefined {
    return this.jar.get(host)?.get(name);
  }

  /**
   * Requests `url` and follows redirects until a page answers or `stopAt(url)` says the
   * redirect target is where the test takes over (a client's redirect URI): then that
   * URL is returned unvisited.
   */
  async go(
    url: string,
    init: { method?: string; form?: Record<string, string>; stopAt?: (u: URL) => boolean } = {},
  ): Promise<{ url: URL; status: number; body: string; stopped: boolean }> {
    let target = new URL(url);
    let method = init.method ?? 'GET';
    let body: string | undefined = init.form
      ? new URLSearchParams(init.form).toString()
      : undefined;
    for (let hops = 0; hops < 20; hops++) {
      if (init.stopAt?.(target)) return { url: target, status: 0, body: '', stopped: true };
      this.visited.push(target.href);
      const headers: Record<string, string> = {};
      const cookie = this.cookieHeader(target);
      if (cookie) headers.cookie = cookie;
      if (body !== undefined) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        headers.origin = target.origin;
      }
      const res = await fetch(target, { method, headers, body, redirect: 'manual' });
      this.keep(target, res);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.arrayBuffer();
        target = new URL(location, target);
        method = 'GET';
        body = undefined;
        continue;
      }
      return { url: target, status: res.status, body: await res.text(), stopped: false };
    }
    throw new Error(`more than 20 redirects from ${url}`);
  }
}
