/**
 * The routes of the gateway as its clients' authorization server (spec-language.md,
 * "Sign-in for MCP clients"), in a plugin of
 * their own: form and JSON bodies read here only, RFC 6749 errors rather than the
 * envelope. Every route answers 404 while the spec being served has no `sign-in` (read per
 * request, so a reload that drops it closes them), like the RFC 9728 metadata.
 */
import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginCallback,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import { RefusedRequest } from '../refused-request.js';
import { restErrorHandler } from '../../projection/rest/rest-error.js';
import { publicBase } from '../access-control.js';
import type { CompiledSpec } from '../../compiler/descriptor.js';
import type { SignInServices } from './sign-in-services.js';
import { SIGN_IN_PATHS, SIGN_IN_TTL_MS } from './sign-in-types.js';
import { endBrowserSession, browserSessionOf } from './browser-session.js';
import {
  noStore,
  page,
  pageHeaders,
  redirectWith,
  refusal,
  sendErrorPage,
  sendOAuthError,
} from './oauth-answers.js';
import { register } from './client-registration.js';
import { clientDigest } from './client-registration.js';
import { checkAuthorization } from './authorization-request.js';
import { consentPage, type SealedConsent } from './consent-page.js';
import {
  answerCallback,
  browserBinding,
  goToProvider,
  sameBrowser,
  samePath,
} from './provider-round-trip.js';
import { answerToken } from './token-endpoint.js';

export interface SignInRoutesOptions {
  /** What the runtime serving now holds: its spec, and the sign-in services with it. */
  readonly current: () => { readonly spec: CompiledSpec; readonly signIn?: SignInServices };
  readonly mcpPath: string;
  readonly publicUrl?: string;
  readonly bodyLimit: number;
}

/** Registration and token bodies are small. */
const SIGN_IN_BODY_LIMIT = 64 * 1024;

type Form = Record<string, string | string[]>;

const FORM = /^application\/x-www-form-urlencoded\s*(;.*)?$/i;
const JSON_TYPE = /^application\/json\s*(;.*)?$/i;

function parseForm(text: string): Form {
  const form: Form = Object.create(null) as Form;
  for (const [k, v] of new URLSearchParams(text)) {
    const held = form[k];
    form[k] = held === undefined ? v : [...(Array.isArray(held) ? held : [held]), v];
  }
  return form;
}

/** The scopes the endpoint's tools, resources and prompts need: what a client may ask for. */
function scopesOf(spec: CompiledSpec): string[] {
  const all = [spec.tools, spec.resources, spec.prompts].flat().flatMap((s) => s.scopes);
  return [...new Set(all)].sort();
}

export const signInRoutes: FastifyPluginCallback<SignInRoutesOptions> = (app, opts, done) => {
  const { current, mcpPath } = opts;
  /** The services while the spec serving now signs in; else the route is not there. */
  const active = (): { services: SignInServices; spec: CompiledSpec } | undefined => {
    const rt = current();
    return rt.signIn && rt.spec.access?.signIn ? { services: rt.signIn, spec: rt.spec } : undefined;
  };
  const baseOf = (req: FastifyRequest): string => publicBase(req, opts.publicUrl);
  const resourcesOf = (base: string, spec: CompiledSpec): Set<string> =>
    new Set([`${base}${mcpPath}`, ...spec.toolsets.map((t) => `${base}${mcpPath}/${t.name}`)]);

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    FORM,
    { parseAs: 'string', bodyLimit: SIGN_IN_BODY_LIMIT },
    (_req, body, next) => next(null, parseForm(String(body))),
  );
  app.addContentTypeParser(
    JSON_TYPE,
    { parseAs: 'string', bodyLimit: SIGN_IN_BODY_LIMIT },
    (_req, body, next) => {
      try {
        next(null, JSON.parse(String(body)) as unknown);
      } catch {
        next(Object.assign(new Error('the body is not JSON'), { statusCode: 400 }));
      }
    },
  );
  const fallback = restErrorHandler(opts.bodyLimit);
  app.setErrorHandler((err, req, reply) => {
    // The guard's refusals (Origin, Host) keep the gateway's own shape.
    if (err instanceof RefusedRequest) return fallback(err as unknown as FastifyError, req, reply);
    const status = (err as { statusCode?: number }).statusCode;
    if (status === 413)
      return sendOAuthError(reply.code(413), refusal('invalid_request', 'the body is too large'));
    if (status !== undefined && status >= 400 && status < 500)
      return sendOAuthError(
        reply,
        refusal(
          'invalid_request',
          'the body is not a form (application/x-www-form-urlencoded) or JSON',
        ),
      );
    req.log.error({ err }, 'sign-in route failed');
    return sendOAuthError(reply, refusal('server_error', 'the gateway failed to answer'));
  });

  // RFC 8414.
  app.get(SIGN_IN_PATHS.authorizationServerMetadata, async (req, reply) => {
    const on = active();
    if (!on) return reply.callNotFound();
    const base = baseOf(req);
    return reply.header('cache-control', 'max-age=300').send({
      issuer: base,
      authorization_endpoint: `${base}${SIGN_IN_PATHS.authorize}`,
      token_endpoint: `${base}${SIGN_IN_PATHS.token}`,
      registration_endpoint: `${base}${SIGN_IN_PATHS.register}`,
      jwks_uri: `${base}${SIGN_IN_PATHS.jwks}`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      scopes_supported: scopesOf(on.spec),
    });
  });

  app.get(SIGN_IN_PATHS.jwks, async (_req, reply) => {
    const on = active();
    if (!on) return reply.callNotFound();
    return reply
      .header('cache-control', 'max-age=300')
      .send({ keys: [on.services.keys.publicJwk] });
  });

  // RFC 7591: nothing is stored, the client_id is the sealed registration.
  app.post(SIGN_IN_PATHS.register, async (req, reply) => {
    const on = active();
    if (!on) return reply.callNotFound();
    if (!JSON_TYPE.test(req.headers['content-type'] ?? ''))
      return sendOAuthError(
        reply,
        refusal('invalid_client_metadata', 'the registration must be sent as application/json'),
      );
    const done = register(on.services, req.body);
    if (!done.ok) {
      on.services.audit({ event: 'refused', error: done.refusal.error, reason: 'registration' });
      return sendOAuthError(reply, done.refusal);
    }
    on.services.audit({ event: 'client_registered', clientId: done.answer.client_id as string });
    return noStore(reply).code(201).send(done.answer);
  });

  app.get<{ Querystring: Record<string, unknown> }>(SIGN_IN_PATHS.authorize, async (req, reply) => {
    const on = active();
    if (!on) return reply.callNotFound();
    const base = baseOf(req);
    const checked = await checkAuthorization(on.services, req.query, resourcesOf(base, on.spec));
    if (checked.kind === 'page') {
      on.services.audit({
        event: 'refused',
        error: checked.refusal.error,
        reason: checked.refusal.description,
      });
      return sendErrorPage(reply, 400, checked.refusal);
    }
    if (checked.kind === 'redirect') {
      on.services.audit({
        event: 'refused',
        error: checked.refusal.error,
        reason: checked.refusal.description,
        clientId: checked.clientId,
      });
      return reply.redirect(
        redirectWith(checked.redirectUri, {
          error: checked.refusal.error,
          error_description: checked.refusal.description,
          state: checked.state,
          iss: base,
        }),
        302,
      );
    }
    const binding = browserBinding(req, reply, base);
    // The same person consented to this client in this browser before: straight on.
    const session = browserSessionOf(req, on.services.sealer, base);
    if (session?.consented.includes(clientDigest(checked.client.clientId)))
      return goToProvider(reply, on.services, base, binding, {
        purpose: 'authorize',
        request: checked.request,
      });
    const consent: SealedConsent = { request: checked.request, browserBinding: binding };
    const sealedConsent = on.services.sealer.seal('consent', consent, SIGN_IN_TTL_MS.providerState);
    return pageHeaders(reply).send(
      consentPage({ client: checked.client, request: checked.request, sealedConsent }),
    );
  });

  app.post(SIGN_IN_PATHS.consent, async (req, reply) => {
    const on = active();
    if (!on) return reply.callNotFound();
    const base = baseOf(req);
    const form = (req.body ?? {}) as Form;
    const opened = on.services.sealer.open<SealedConsent>('consent', form.consent);
    if (!opened.ok || !sameBrowser(req, base, opened.value.browserBinding)) {
      on.services.audit({ event: 'refused', error: 'invalid_request', reason: 'consent form' });
      return sendErrorPage(
        reply,
        400,
        refusal(
          'invalid_request',
          opened.ok || opened.reason === 'invalid'
            ? 'consent is not a form this gateway showed this browser'
            : 'the consent form has expired: start again from your client',
        ),
      );
    }
    const { request, browserBinding: binding } = opened.value;
    if (form.decision === 'approve')
      return goToProvider(reply, on.services, base, binding, { purpose: 'authorize', request });
    on.services.audit({
      event: 'refused',
      error: 'access_denied',
      reason: 'the person denied the client',
      clientId: request.clientId,
    });
    return reply.redirect(
      redirectWith(request.redirectUri, {
        error: 'access_denied',
        error_description: 'the person denied the request',
        state: request.state,
        iss: base,
      }),
      303,
    );
  });

  app.get<{ Querystring: Record<string, unknown> }>(SIGN_IN_PATHS.callback, async (req, reply) => {
    const on = active();
    if (!on) return reply.callNotFound();
    return answerCallback(req, reply, on.services, baseOf(req));
  });

  app.get<{ Querystring: Record<string, unknown> }>(
    SIGN_IN_PATHS.pageSignIn,
    async (req, reply) => {
      const on = active();
      if (!on) return reply.callNotFound();
      const base = baseOf(req);
      const returnTo = req.query.return === undefined ? '/' : samePath(req.query.return);
      if (returnTo === undefined)
        return sendErrorPage(
          reply,
          400,
          refusal('invalid_request', 'return must be a path of this gateway, starting with one /'),
        );
      const binding = browserBinding(req, reply, base);
      return goToProvider(reply, on.services, base, binding, { purpose: 'page', returnTo });
    },
  );

  app.post(SIGN_IN_PATHS.pageSignOut, async (req, reply) => {
    const on = active();
    if (!on) return reply.callNotFound();
    endBrowserSession(reply, baseOf(req));
    return pageHeaders(reply).send(
      page('Signed out', '<p>This browser is signed out of the gateway.</p>'),
    );
  });

  app.post(SIGN_IN_PATHS.token, async (req: FastifyRequest, reply: FastifyReply) => {
    const on = active();
    if (!on) return reply.callNotFound();
    const form = req.body;
    // RFC 6749 section 3.2: the token request is a form, nothing else.
    if (!FORM.test(req.headers['content-type'] ?? '') || form === null || typeof form !== 'object')
      return sendOAuthError(
        reply,
        refusal('invalid_request', 'the body must be a form (application/x-www-form-urlencoded)'),
      );
    const result = await answerToken(on.services, baseOf(req), form as Form);
    if (!result.ok) {
      on.services.audit({
        event: 'refused',
        error: result.refusal.error,
        reason: result.refusal.description,
        ...(result.sub !== undefined && { sub: result.sub }),
        ...(result.clientId !== undefined && { clientId: result.clientId }),
      });
      return sendOAuthError(reply, result.refusal);
    }
    on.services.audit({
      event: (form as Form).grant_type === 'refresh_token' ? 'token_refreshed' : 'token_issued',
      sub: result.sub,
      clientId: result.clientId,
    });
    return noStore(reply).send(result.answer);
  });
  done();
};

/** Registers the plugin on the app (server/app.ts). */
export function registerSignInRoutes(app: FastifyInstance, opts: SignInRoutesOptions): void {
  void app.register(signInRoutes, opts);
}
