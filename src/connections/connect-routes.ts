/**
 * The connect pages of `auth user` (spec-language.md, "On whose behalf (upstream
 * identity)"): `GET /connect/<provider>/<id>` opens the link the engine quoted in
 * AUTHORIZATION_REQUIRED, signs the browser in as the caller the link was made for and
 * sends it to the provider (authorization code, PKCE S256, a sealed single-use `state`);
 * `GET /connect/<provider>/callback` exchanges the code and stores the token set.
 *
 * Who the browser is: the Authorization header when sent, else the sign-in's session
 * cookie (with sign-in and no session, the browser is sent to sign in first), else the
 * caller's API key pasted into the page's form. Any caller but the link's is refused:
 * a link forwarded to someone else connects nobody's account to the wrong caller.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl, CallerResult } from '../access/access-control.js';
import { escapeHtml, page, pageHeaders } from '../access/sign-in/oauth-answers.js';
import { SIGN_IN_PATHS } from '../access/sign-in/sign-in-types.js';
import { requestToken } from '../outbound/token-request.js';
import { CONNECT_PATH, connectCallbackUrl, connectPageUrl } from './connect-path.js';
import { CONNECT_TTL_MS, type ConnectionServices } from './connection-services.js';

/** What the pages need of the runtime serving now. */
export interface ConnectRuntime {
  readonly access: AccessControl;
  readonly connections?: ConnectionServices;
  readonly signInPages: boolean;
}

interface ConnectLink {
  /** The caller's id. */
  readonly c: string;
  readonly p: string;
}

interface ConnectState extends ConnectLink {
  /** PKCE code verifier. */
  readonly v: string;
  /** Single use. */
  readonly j: string;
}

const KEY_FIELD_LIMIT = 4096;

function sendPage(reply: FastifyReply, status: number, title: string, body: string): FastifyReply {
  return pageHeaders(reply).code(status).send(page(title, body));
}

function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** `caller` with `Bearer <key>` as its Authorization: how a pasted key is checked. */
function withKey(req: FastifyRequest, key: string): FastifyRequest {
  return Object.create(req, {
    headers: { value: { ...req.headers, authorization: `Bearer ${key}` } },
  }) as FastifyRequest;
}

export function registerConnectRoutes(app: FastifyInstance, current: () => ConnectRuntime): void {
  // The pasted key arrives as a form (no script on the page); read here only, bounded.
  void app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: KEY_FIELD_LIMIT },
      (_req, body, done) => done(null, new URLSearchParams(body as string)),
    );

    const opened = (
      services: ConnectionServices,
      provider: string,
      id: string,
    ): ConnectLink | string => {
      const link = services.sealer.open<ConnectLink>('connect-link', id);
      if (!link.ok)
        return link.reason === 'expired'
          ? 'This connect link has expired. Repeat the call in your agent to get a new one.'
          : 'This is not a connect link of this gateway. Repeat the call in your agent to get one.';
      if (link.value.p !== provider || !services.providers.has(provider))
        return 'This connect link is for another provider.';
      return link.value;
    };

    /** The browser is the link's caller: off to the provider with a fresh state. */
    const toProvider = (
      reply: FastifyReply,
      services: ConnectionServices,
      base: string,
      link: ConnectLink,
    ): FastifyReply => {
      const provider = services.providers.get(link.p)!;
      const verifier = randomBytes(32).toString('base64url');
      const state = services.sealer.seal<ConnectState>(
        'connect-state',
        { c: link.c, p: link.p, v: verifier, j: randomUUID() },
        CONNECT_TTL_MS,
      );
      const url = new URL(provider.descriptor.authorizeUrl);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', provider.client.id);
      url.searchParams.set('redirect_uri', connectCallbackUrl(base, link.p));
      if (provider.descriptor.scopes.length > 0)
        url.searchParams.set('scope', provider.descriptor.scopes.join(' '));
      url.searchParams.set('state', state);
      url.searchParams.set('code_challenge', pkceChallenge(verifier));
      url.searchParams.set('code_challenge_method', 'S256');
      return pageHeaders(reply).redirect(url.href, 303);
    };

    const judged = (
      reply: FastifyReply,
      who: CallerResult,
      link: ConnectLink,
      services: ConnectionServices,
      base: string,
    ): FastifyReply => {
      if (!who.ok)
        return sendPage(reply, 401, 'Not signed in', `<p>${escapeHtml(who.error.message)}</p>`);
      if (who.caller.id !== link.c) {
        services.audit({
          event: 'refused',
          provider: link.p,
          caller: who.caller.id,
          reason: 'another caller',
        });
        return sendPage(
          reply,
          403,
          'Another caller',
          '<p>This link was made for another caller: only the caller whose call asked for it can connect an account with it. Repeat the call as yourself to get your own link.</p>',
        );
      }
      return toProvider(reply, services, base, link);
    };

    // A wildcard, not `:id`: a sealed link is longer than the router's parameter limit.
    scope.get<{ Params: { provider: string; '*': string } }>(
      `${CONNECT_PATH}/:provider/*`,
      async (req, reply) => {
        const runtime = current();
        const services = runtime.connections;
        if (!services) return reply.callNotFound();
        const link = opened(services, req.params.provider, req.params['*']);
        if (typeof link === 'string')
          return sendPage(reply, 400, 'Connect link', `<p>${escapeHtml(link)}</p>`);
        const base = runtime.access.baseUrl(req);
        const header = req.headers.authorization;
        const signedIn = runtime.access.browserSession(req) !== undefined;
        if ((header !== undefined && header !== '') || signedIn)
          return judged(reply, await runtime.access.resolvePage(req), link, services, base);
        // With sign-in the browser signs in first and comes back here.
        if (runtime.signInPages) {
          const back = `${CONNECT_PATH}/${encodeURIComponent(link.p)}/${encodeURIComponent(req.params['*'])}`;
          return pageHeaders(reply).redirect(
            `${SIGN_IN_PATHS.pageSignIn}?return=${encodeURIComponent(back)}`,
            302,
          );
        }
        const action = connectPageUrl('', link.p, req.params['*']);
        return sendPage(
          reply,
          200,
          `Connect your ${link.p} account`,
          `<p>Calls to this upstream are made with your own <b>${escapeHtml(link.p)}</b> account. Paste the API key your agent calls the gateway with, to show this is you; then you sign in at ${escapeHtml(link.p)}.</p>
<form method="post" action="${escapeHtml(action)}"><p><input type="password" name="key" autocomplete="off" required size="40" aria-label="API key"></p><p><button type="submit">Continue</button></p></form>`,
        );
      },
    );

    scope.post<{ Params: { provider: string; '*': string } }>(
      `${CONNECT_PATH}/:provider/*`,
      async (req, reply) => {
        const runtime = current();
        const services = runtime.connections;
        if (!services) return reply.callNotFound();
        const link = opened(services, req.params.provider, req.params['*']);
        if (typeof link === 'string')
          return sendPage(reply, 400, 'Connect link', `<p>${escapeHtml(link)}</p>`);
        const base = runtime.access.baseUrl(req);
        // The form is the gateway's own page: another site's form is not a way in.
        const origin = req.headers.origin;
        if (typeof origin !== 'string' || origin.toLowerCase() !== new URL(base).origin)
          return sendPage(
            reply,
            403,
            'Connect',
            "<p>The form must be sent from this gateway's own page.</p>",
          );
        const key = req.body instanceof URLSearchParams ? req.body.get('key') : null;
        if (!key || !/^[A-Za-z0-9\-._~+/]+=*$/.test(key.trim()))
          return sendPage(reply, 400, 'Connect', '<p>Paste your API key.</p>');
        return judged(
          reply,
          await runtime.access.resolve(withKey(req, key.trim())),
          link,
          services,
          base,
        );
      },
    );

    scope.get<{ Params: { provider: string }; Querystring: Record<string, unknown> }>(
      `${CONNECT_PATH}/:provider/callback`,
      async (req, reply) => {
        const runtime = current();
        const services = runtime.connections;
        const name = req.params.provider;
        const provider = services?.providers.get(name);
        if (!services || !provider) return reply.callNotFound();
        const opened = services.sealer.open<ConnectState>('connect-state', req.query.state);
        if (!opened.ok || opened.value.p !== name)
          return sendPage(
            reply,
            400,
            'Connect',
            '<p>This answer does not belong to a connection this gateway started, or it came too late. Open the connect link again.</p>',
          );
        const state = opened.value;
        let fresh: boolean;
        try {
          fresh = await services.spent.markSpent(state.j, opened.expiresAt);
        } catch {
          return sendPage(
            reply,
            503,
            'Connect',
            '<p>The gateway cannot record this answer now. Open the connect link again shortly.</p>',
          );
        }
        if (!fresh) {
          services.audit({
            event: 'refused',
            provider: name,
            caller: state.c,
            reason: 'state used already',
          });
          return sendPage(
            reply,
            400,
            'Connect',
            '<p>This answer was used already. Open the connect link again.</p>',
          );
        }
        // RFC 9207: an answer naming another issuer than the one declared came from an
        // authorization server this provider is not (a mix-up); nothing of it is used.
        const iss = req.query.iss;
        const issuer = provider.descriptor.issuer;
        if (issuer !== undefined && iss !== undefined && iss !== issuer) {
          services.audit({
            event: 'refused',
            provider: name,
            caller: state.c,
            reason: 'iss is not the provider declared',
          });
          return sendPage(
            reply,
            400,
            'Not connected',
            `<p>This answer names another issuer than ${escapeHtml(name)}'s: nothing was connected.</p>`,
          );
        }
        const error = req.query.error;
        if (error !== undefined) {
          const code =
            typeof error === 'string' && /^[\w.-]{1,64}$/.test(error) ? error : 'an error';
          services.audit({
            event: 'refused',
            provider: name,
            caller: state.c,
            reason: `provider: ${code}`,
          });
          return sendPage(
            reply,
            400,
            'Not connected',
            `<p>${escapeHtml(name)} answered ${escapeHtml(code)}: nothing was connected.</p>`,
          );
        }
        const code = req.query.code;
        if (typeof code !== 'string' || code === '' || code.length > 4096)
          return sendPage(reply, 400, 'Not connected', '<p>The provider sent no code.</p>');
        const base = runtime.access.baseUrl(req);
        const answer = await requestToken(
          provider.descriptor.tokenUrl,
          {
            grant_type: 'authorization_code',
            code,
            redirect_uri: connectCallbackUrl(base, name),
            code_verifier: state.v,
          },
          provider.client,
          provider.requestOptions,
        );
        if (!answer.ok) {
          services.audit({
            event: 'refused',
            provider: name,
            caller: state.c,
            reason: answer.reason,
          });
          return sendPage(reply, 502, 'Not connected', `<p>${escapeHtml(answer.reason)}.</p>`);
        }
        const asked = provider.descriptor.scopes.join(' ') || undefined;
        try {
          await services.store.put(
            name,
            state.c,
            services.tokenSetOf(answer.token, asked, Date.now()),
          );
        } catch {
          return sendPage(
            reply,
            503,
            'Not connected',
            '<p>The gateway cannot store the connection now. Open the connect link again shortly.</p>',
          );
        }
        services.audit({ event: 'connected', provider: name, caller: state.c });
        return sendPage(
          reply,
          200,
          'Connected',
          `<p>Your ${escapeHtml(name)} account is connected. Go back to your agent and repeat the call.</p>`,
        );
      },
    );
  });
}
