/**
 * What both token kinds (client-credentials, exchange) open for their `token-url` at
 * start: the gateway's client (id and secret from the environment) and the way out to
 * the endpoint (token-endpoint-dispatcher.ts), closed with the identity.
 */
import type { TokenAuth } from '../../../../compiler/descriptor.js';
import { openTokenEndpointDispatcher } from '../../../../outbound/token-endpoint-dispatcher.js';
import {
  basicAuthorization,
  type TokenClient,
  type TokenRequestOptions,
} from '../../../../outbound/token-request.js';
import type { IdentityContext } from '../identity-types.js';
import { tokenClient } from './client-secret.js';

export interface TokenIdentityOptions {
  /** The clock the cache reads (epoch ms): a test moves it rather than waiting. */
  readonly now?: () => number;
  /** The whole exchange with the token endpoint (TOKEN_TIMEOUT_MS unless given). */
  readonly timeoutMs?: number;
}

export interface TokenEndpoint {
  readonly client: TokenClient;
  readonly requestOptions: TokenRequestOptions;
  /** The client secret and the endpoint's proxy password: redacted everywhere. */
  readonly secrets: readonly string[];
  /** The Basic authorization sent to the endpoint, redacted as sent. */
  readonly sent: readonly string[];
  close(): Promise<void>;
}

export function openTokenEndpoint(
  auth: TokenAuth,
  ctx: IdentityContext,
  options: TokenIdentityOptions,
): TokenEndpoint {
  const client = tokenClient(auth, ctx.env);
  const way = openTokenEndpointDispatcher(
    auth.tokenUrl,
    `the token endpoint of ${ctx.upstream}`,
    ctx.env,
    ctx.egress,
  );
  return {
    client,
    requestOptions: {
      dispatcher: way.dispatcher,
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    },
    secrets: [client.secret, ...way.secrets],
    sent: [basicAuthorization(client)],
    close: () => way.close(),
  };
}
