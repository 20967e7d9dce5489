/**
 * The way out to a token endpoint (an upstream's `token-url`, an `oauth-provider`'s
 * `token-url` and `revoke-url`): a dispatcher of its own, opened once at start, so that a
 * gateway whose egress goes through a proxy obtains its tokens the way it reaches its
 * upstreams, not around them.
 *
 * For an upstream's token kind: the upstream's `proxy` when it declares one (the same way
 * out), else HTTPS_PROXY / HTTP_PROXY / NO_PROXY for the endpoint's host; the upstream's
 * `ca-file` is trusted beside the system's roots (one private CA often signs both). Its
 * client certificate is not presented: it authenticates the gateway to the upstream, and
 * a token endpoint authenticates the client with its secret. For a provider: the
 * environment alone, as a provider serves every upstream that names it.
 */
import type { UpstreamTls } from '../compiler/descriptor.js';
import type { Env } from '../process/env.js';
import { openUpstreamDispatcher, type OpenedDispatcher } from './upstream-dispatcher.js';

/** What an upstream lends its token endpoint: its proxy and its trusted CA. */
export interface TokenEgress {
  readonly proxy?: string | undefined;
  readonly tls?: UpstreamTls | undefined;
}

/** A token endpoint holds one or two connections: a token is asked for rarely. */
const TOKEN_CONNECTIONS = 4;

export function openTokenEndpointDispatcher(
  url: string,
  label: string,
  env: Env,
  egress: TokenEgress = {},
): OpenedDispatcher {
  const caFile = egress.tls?.caFile;
  return openUpstreamDispatcher(
    new URL(url),
    {
      connections: TOKEN_CONNECTIONS,
      proxy: egress.proxy,
      tls: caFile === undefined ? undefined : { caFile },
      label,
    },
    env,
  );
}
