/**
 * `GET /api/connections` and `DELETE /api/connections/<provider>` (spec-language.md,
 * `auth user`): the caller's own connected accounts (provider, scopes, when connected,
 * when the token expires; never a token), and the removal of one, revoked at the
 * provider's `revoke-url` first when it has one (best effort: the connection is removed
 * whatever the provider answers). The credential is a header or, with sign-in, the
 * session cookie, as for the approvals API.
 */
import type { FastifyInstance } from 'fastify';
import type { CallerGate, GatedRuntime } from '../access/authenticate.js';
import { engineError } from '../engine/error-catalogue.js';
import { sendRestError } from '../projection/rest/rest-error.js';
import { basicAuthorization } from '../outbound/token-request.js';
import { USER_AGENT } from '../outbound/exchange.js';
import { connectPageUrl } from './connect-path.js';
import type { ConnectionServices, ProviderClient } from './connection-services.js';
import { summaryOf, type TokenSet } from './token-set.js';

export const CONNECTIONS_API_PATH = '/api/connections';
const REVOKE_TIMEOUT_MS = 5_000;

export interface ConnectionsRuntime extends GatedRuntime {
  readonly connections?: ConnectionServices;
}

const storeDown = (): ReturnType<typeof engineError> =>
  engineError(
    'UPSTREAM_AUTH',
    'the store of connected accounts does not answer; nothing was listed or removed. Retry shortly',
  );

/** RFC 7009: the refresh token (which revokes the grant at most providers), else the access token. */
async function revoke(provider: ProviderClient, set: TokenSet): Promise<void> {
  const url = provider.descriptor.revokeUrl;
  if (url === undefined) return;
  const [token, hint] =
    set.refreshToken !== undefined
      ? [set.refreshToken, 'refresh_token']
      : [set.accessToken, 'access_token'];
  try {
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(REVOKE_TIMEOUT_MS),
      headers: {
        authorization: basicAuthorization(provider.client),
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': USER_AGENT,
      },
      body: new URLSearchParams({ token, token_type_hint: hint }).toString(),
      ...(provider.requestOptions.dispatcher && { dispatcher: provider.requestOptions.dispatcher }),
    } as RequestInit);
    await res.body?.cancel();
  } catch {
    // Best effort: the provider may be down; the gateway forgets the tokens anyway.
  }
}

export function registerConnectionApiRoutes<R extends ConnectionsRuntime>(
  scope: FastifyInstance,
  gate: CallerGate<R>,
): void {
  const hooks = gate.pageHooks;

  scope.get(CONNECTIONS_API_PATH, hooks, async function listConnections(req, reply) {
    const { runtime, caller } = gate.served(req);
    const services = runtime.connections;
    const base = runtime.access.baseUrl(req);
    const rows: Record<string, unknown>[] = [];
    try {
      for (const [name] of services?.providers ?? []) {
        const set = await services!.store.get(name, caller.id);
        if (set) rows.push({ ...summaryOf(name, set), connected: true });
        else {
          // Not connected: a fresh link of the caller's own, for the page and the CLI.
          const link = services!.link(caller.id, name);
          rows.push({
            provider: name,
            connected: false,
            connect_url: connectPageUrl(base, name, link.id),
            expires_at: new Date(link.expiresAt).toISOString(),
          });
        }
      }
    } catch {
      return sendRestError(reply, storeDown());
    }
    return reply
      .header('cache-control', 'no-store')
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ connections: rows }));
  });

  scope.delete<{ Params: { provider: string } }>(
    `${CONNECTIONS_API_PATH}/:provider`,
    hooks,
    async function removeConnection(req, reply) {
      const { runtime, caller } = gate.served(req);
      const name = req.params.provider;
      const provider = runtime.connections?.providers.get(name);
      if (!runtime.connections || !provider)
        return sendRestError(
          reply,
          engineError('NOT_FOUND', `no oauth-provider named ${JSON.stringify(name.slice(0, 64))}`),
        );
      const services = runtime.connections;
      let set: TokenSet | undefined;
      try {
        set = await services.store.get(name, caller.id);
        if (!set)
          return sendRestError(
            reply,
            engineError('NOT_FOUND', `you have no ${name} account connected`),
          );
        await revoke(provider, set);
        await services.store.remove(name, caller.id);
      } catch {
        return sendRestError(reply, storeDown());
      }
      services.audit({
        event: 'removed',
        provider: name,
        caller: caller.id,
        reason: 'by its caller',
      });
      return reply
        .header('cache-control', 'no-store')
        .type('application/json; charset=utf-8')
        .send(JSON.stringify({ removed: name }));
    },
  );
}
