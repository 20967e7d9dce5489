/**
 * Checks on every request before any route runs (protocol.md, "Both eras"):
 * a browser Origin must be allowed, and when bound to loopback the Host must be a
 * loopback name (DNS rebinding); behind a Service, the configured hosts.
 */
import { isLoopbackHost } from './listen-address.js';

export interface GuardConfig {
  /** Origins a browser may call from (spec `allow-origin`). */
  readonly allowOrigins: readonly string[];
  /** Host names accepted in the Host header; empty means "loopback names only" when bound to loopback, anything otherwise. */
  readonly allowedHosts: readonly string[];
  readonly loopbackOnly: boolean;
}

export type GuardVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const OK: GuardVerdict = { ok: true };

export type RequestGuard = (headers: {
  origin?: string | undefined;
  host?: string | undefined;
}) => GuardVerdict;

export function prepareRequestGuard(cfg: GuardConfig): RequestGuard {
  const origins = new Set(cfg.allowOrigins.map((o) => o.toLowerCase().replace(/\/+$/, '')));
  const hosts = new Set(cfg.allowedHosts.map((h) => h.toLowerCase()));
  // The Host a request without Origin was last let in with: callers send the same one on
  // every request, and its verdict depends on nothing else (no lowercasing, slicing and
  // pattern test per request).
  let passedHost: string | undefined;
  return function requestGuard({ origin, host }) {
    if (origin === undefined && host !== undefined && host === passedHost) return OK;
    const hostname = host ? hostnameOf(host) : undefined;
    if (hosts.size > 0) {
      if (!hostname || !hosts.has(hostname))
        return {
          ok: false,
          reason: `Host ${JSON.stringify(host ?? '')} is not one this gateway serves`,
        };
    } else if (cfg.loopbackOnly && hostname !== undefined && !isLoopbackHost(hostname)) {
      return {
        ok: false,
        reason: `Host ${JSON.stringify(host)} is not a loopback name; refusing a possible DNS-rebinding request`,
      };
    }
    if (origin === undefined) {
      passedHost = host;
      return OK;
    }
    const o = origin.toLowerCase();
    if (origins.has(o)) return OK;
    // Same origin: the gateway's own pages calling it. Only when Host itself was checked:
    // otherwise a rebinding page could name itself in both Origin and Host.
    const hostChecked = hosts.size > 0 || cfg.loopbackOnly;
    if (
      hostChecked &&
      host &&
      (o === `http://${host.toLowerCase()}` || o === `https://${host.toLowerCase()}`)
    )
      return OK;
    return { ok: false, reason: `Origin ${JSON.stringify(origin)} is not allowed` };
  };
}

function hostnameOf(host: string): string {
  const h = host.toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon >= 0 ? h.slice(0, colon) : h;
}
