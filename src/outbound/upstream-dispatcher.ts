/**
 * The way out to one upstream (spec-language.md, "Many upstreams and databases in one
 * spec"): an undici dispatcher of its own, with its own pool size, keep-alive, TLS
 * material and egress proxy. Everything is decided here once at start-up — the files
 * read, the proxy chosen for the upstream's one origin — so a call only dispatches.
 *
 * Egress: `proxy "<url>"` names the upstream's proxy; without it HTTPS_PROXY /
 * HTTP_PROXY / NO_PROXY of the gateway's environment decide, for the upstream's host,
 * at start. A proxied https upstream is reached through an HTTP CONNECT tunnel, and TLS
 * is still end to end with the upstream (its certificate verified against `ca-file` and
 * the system roots). Redirects are never followed: undici's dispatch does not follow.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent, ProxyAgent, type Dispatcher } from './undici.js';
import type { UpstreamTls } from '../compiler/descriptor.js';
import type { Env } from '../process/env.js';
import { StartupError } from '../process/startup-error.js';

export interface UpstreamEgress {
  /** Its pool: at most this many connections per origin (undefined: undici's, unbounded). */
  readonly connections?: number | undefined;
  readonly proxy?: string | undefined;
  readonly tls?: UpstreamTls | undefined;
  /** How the upstream is named in messages: `upstream "crm"`, `the spec's base-url`. */
  readonly label: string;
}

/** TLS options for the upstream's connections: trusted roots and a client certificate. */
export interface TlsMaterial {
  readonly ca?: string[];
  readonly cert?: string;
  readonly key?: string;
}

export interface OpenedDispatcher {
  readonly dispatcher: Dispatcher;
  /** The proxy calls go through (its URL without credentials), or undefined when direct. */
  readonly via: string | undefined;
  /** The proxy's password from its URL (`http://user:pass@proxy`), for the redactor. */
  readonly secrets: readonly string[];
  close(): Promise<void>;
}

const KEEP_ALIVE_MS = 10_000;
const CONNECT_TIMEOUT_MS = 5_000;

/** The dispatcher of one upstream whose requests all go to `target`'s origin. */
export function openUpstreamDispatcher(
  target: URL,
  egress: UpstreamEgress,
  env: Env,
): OpenedDispatcher {
  const tls = readTls(egress.tls, egress.label);
  const proxy = egress.proxy ?? proxyFromEnvironment(target, env);
  if (proxy === undefined) {
    const agent = new Agent({
      keepAliveTimeout: KEEP_ALIVE_MS,
      ...(egress.connections !== undefined && { connections: egress.connections }),
      connect: { timeout: CONNECT_TIMEOUT_MS, ...tls },
    });
    return { dispatcher: agent, via: undefined, secrets: [], close: () => agent.close() };
  }
  let proxyUrl: URL;
  try {
    proxyUrl = new URL(proxy);
  } catch {
    throw new StartupError(
      `the egress proxy of ${egress.label} is not a URL (${egress.proxy ? 'its `proxy`' : 'HTTPS_PROXY / HTTP_PROXY'})`,
    );
  }
  const agent = new ProxyAgent({
    uri: proxyUrl.href,
    keepAliveTimeout: KEEP_ALIVE_MS,
    ...(egress.connections !== undefined && { connections: egress.connections }),
    // The upstream's own TLS, inside the CONNECT tunnel.
    requestTls: { timeout: CONNECT_TIMEOUT_MS, ...tls },
    proxyTls: { timeout: CONNECT_TIMEOUT_MS },
  });
  const password = proxyUrl.password;
  return {
    dispatcher: agent,
    via: withoutCredentials(proxyUrl),
    // undici sends it as Proxy-Authorization to the proxy only; an error quoting it is redacted.
    secrets: password ? [...new Set([password, decodeURIComponent(password)])] : [],
    close: () => agent.close(),
  };
}

function withoutCredentials(u: URL): string {
  return `${u.protocol}//${u.host}`;
}

/**
 * `ca-file`, `cert-file` and `key-file`, read once. The CA is trusted besides the
 * system's roots (a private CA for one upstream must not make public ones untrusted).
 */
export function readTls(tls: UpstreamTls | undefined, label: string): TlsMaterial {
  if (!tls) return {};
  const read = (file: string, what: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new StartupError(`the ${what} of ${label} (${file}) cannot be read: ${why}`);
    }
  };
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined))
    throw new StartupError(
      `the tls of ${label} needs both cert-file and key-file for a client certificate`,
    );
  return {
    ...(tls.caFile !== undefined && { ca: [...rootCertificates, read(tls.caFile, 'ca-file')] }),
    ...(tls.certFile !== undefined && { cert: read(tls.certFile, 'cert-file') }),
    ...(tls.keyFile !== undefined && { key: read(tls.keyFile, 'key-file') }),
  };
}

function variable(env: Env, name: string): string | undefined {
  const v = env[name.toLowerCase()] ?? env[name];
  return v === undefined || v === '' ? undefined : v;
}

/**
 * The proxy the environment names for `target`, as curl reads it: https_proxy /
 * HTTPS_PROXY for https (else the http one), http_proxy / HTTP_PROXY for http, none
 * when no_proxy / NO_PROXY lists the host (`*` for every host; an entry matches the
 * host itself and its subdomains, a leading `.` or `*.` too; `host:port` only that
 * port). Address ranges (CIDR) are not read.
 */
export function proxyFromEnvironment(target: URL, env: Env): string | undefined {
  const https = target.protocol === 'https:';
  const proxy = https
    ? (variable(env, 'HTTPS_PROXY') ?? variable(env, 'HTTP_PROXY'))
    : variable(env, 'HTTP_PROXY');
  if (proxy === undefined) return undefined;
  const noProxy = variable(env, 'NO_PROXY');
  if (noProxy !== undefined && excluded(target, noProxy)) return undefined;
  return proxy;
}

function excluded(target: URL, noProxy: string): boolean {
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    let name = entry;
    let entryPort: string | undefined;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
      name = bracketed[1]!;
      entryPort = bracketed[2];
    } else {
      const m = /^([^:]+):(\d+)$/.exec(entry);
      if (m) {
        name = m[1]!;
        entryPort = m[2];
      }
    }
    if (entryPort !== undefined && entryPort !== port) continue;
    name = name.replace(/^\*?\./, '');
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}
