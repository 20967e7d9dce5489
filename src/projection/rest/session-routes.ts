/**
 * `GET /api/session`: who this browser is signed in as on the gateway's own pages
 * (docs/spec-language.md, "Sign-in for MCP clients"), for the approvals and confirm views
 * to say "Signed in as …" and to call their APIs with the cookie rather than a pasted key.
 * Read from the session cookie alone: an Authorization header is not asked about here,
 * the pages know their pasted key already.
 *
 * Signed out is an answer (200, `signed_in: false`), not a refusal: the page asks on
 * every load, and a 401 there would be an error in every signed-out browser's console.
 * A spec without `sign-in` serves nothing here (404), as no cookie is ever read.
 */
import type { FastifyInstance } from 'fastify';
import { engineError } from '../../engine/error-catalogue.js';
import { sendRestError } from './rest-error.js';
import type { RestRuntime } from './rest-runtime.js';

export const SESSION_API_PATH = '/api/session';

export function registerSessionRoute<R extends RestRuntime>(
  scope: FastifyInstance,
  current: () => R,
): void {
  scope.get(SESSION_API_PATH, async function showSession(req, reply) {
    const { access, gateway } = current();
    if (!gateway.spec.access?.signIn)
      return sendRestError(
        reply,
        engineError('NOT_FOUND', 'this gateway has no sign-in: no browser session to show'),
      );
    const session = access.browserSession(req);
    const body = session
      ? {
          signed_in: true,
          sub: session.sub,
          // The provider's name for the person, else its subject: what the page shows.
          name: session.displayName ?? session.sub,
          scopes: [...session.scopes].sort(),
        }
      : { signed_in: false };
    return (
      reply
        // A person's name: never kept by a cache, and never served to another cookie.
        .header('cache-control', 'no-store')
        .header('vary', 'cookie')
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(body))
    );
  });
}
