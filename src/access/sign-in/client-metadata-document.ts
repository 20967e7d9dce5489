/**
 * Client ID metadata documents: a client names itself with an https URL as `client_id`,
 * and the gateway reads the JSON document there to learn its name and redirect URIs
 * (spec-language.md, "Sign-in for MCP clients"; security.md, "Client ID metadata
 * documents"). The URL is the client's choice, so the fetch is bounded every way a
 * hostile host could hold or misdirect the gateway: time, size, redirects, content type,
 * and the addresses it may connect to.
 *
 * `/authorize` and `/token` call `fetch` on every request; a good answer is served from
 * the cache for as long as the document's headers allow, within bounds.
 */
import type { Readable } from 'node:stream';
import { Agent } from '../../outbound/undici.js';
import { checkClientIdUrl } from './client-id-url.js';
import { checkClientMetadata, type ClientMetadataCheck } from './client-metadata-checks.js';
import {
  CACHE_MAX_ENTRIES,
  CACHE_TTL_MS,
  ExpiringLru,
  cacheTtlMs,
} from './client-metadata-cache.js';
import { REFUSED_ADDRESS_CODE, guardedLookup } from './guarded-lookup.js';
import type { ClientMetadataFetcher } from './sign-in-types.js';

export const FETCH_BOUNDS = Object.freeze({
  /** From the request to the last byte of the body. */
  timeoutMs: 5000,
  maxBytes: 64 * 1024,
  /** Distinct documents being fetched at once; more are refused until one ends. */
  maxInFlight: 64,
});

export interface ClientMetadataFetcherOptions {
  /**
   * Tests only: accept http client ids and let the socket reach loopback addresses, so
   * tests can serve documents from 127.0.0.1. `serve` never sets it; without it a
   * loopback, private or reserved address is refused before any connection.
   */
  readonly allowLoopbackHttp?: boolean;
  /**
   * Tests only: the PEM certificates TLS connections trust instead of the system's, so a
   * test can serve a document over https from 127.0.0.1. `serve` never sets it.
   */
  readonly trustedCertificates?: string;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  readonly maxEntries?: number;
  /** The cache's clock (epoch ms); tests move it instead of waiting. */
  readonly now?: () => number;
}

export interface ClosableClientMetadataFetcher extends ClientMetadataFetcher {
  /** Closes the fetcher's connections (at shutdown). */
  close(): Promise<void>;
}

type Result = ClientMetadataCheck;

interface Loaded {
  readonly result: Result;
  readonly ttlMs: number;
}

function refused(reason: string): Loaded {
  return { result: { ok: false, reason }, ttlMs: CACHE_TTL_MS.failure };
}

function header(headers: Record<string, string | string[] | undefined>, name: string) {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** `application/json`, or any `application/…+json`, parameters aside. */
function isJsonType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}

/** Whether an error (or one it wraps) is the guarded lookup's refusal. */
function isRefusedAddress(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; depth++) {
    if ((e as NodeJS.ErrnoException).code === REFUSED_ADDRESS_CODE) return true;
    if (e instanceof AggregateError && e.errors.some(isRefusedAddress)) return true;
    e = e.cause;
  }
  return false;
}

export function createClientMetadataFetcher(
  opts: ClientMetadataFetcherOptions = {},
): ClosableClientMetadataFetcher {
  const allowLoopback = opts.allowLoopbackHttp === true;
  const timeoutMs = opts.timeoutMs ?? FETCH_BOUNDS.timeoutMs;
  const maxBytes = opts.maxBytes ?? FETCH_BOUNDS.maxBytes;
  const within = timeoutMs >= 1000 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
  // Redirects: undici's dispatcher follows none unless a redirect interceptor is added,
  // so a 3xx arrives here as itself and is refused below.
  const agent = new Agent({
    connect: {
      lookup: guardedLookup(allowLoopback),
      timeout: timeoutMs,
      ...(opts.trustedCertificates !== undefined ? { ca: opts.trustedCertificates } : {}),
    },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connections: 4,
    keepAliveTimeout: 4000,
  });
  const cache = new ExpiringLru<Result>(opts.maxEntries ?? CACHE_MAX_ENTRIES, opts.now ?? Date.now);
  const inFlight = new Map<string, Promise<Result>>();

  async function load(url: URL, clientId: string): Promise<Loaded> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let body: Readable | undefined;
    try {
      const res = await agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'mcp-beaver' },
        signal: controller.signal,
      });
      body = res.body;
      const status = res.statusCode;
      if (status >= 300 && status < 400)
        return refused(
          `the client metadata document answered a redirect (${status}), which is not followed`,
        );
      if (status !== 200) return refused(`the client metadata document answered status ${status}`);
      if (!isJsonType(header(res.headers, 'content-type')))
        return refused('the client metadata document must be served as application/json');
      const encoding = header(res.headers, 'content-encoding');
      if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity')
        return refused('the client metadata document must not be content-encoded');
      const tooBig = `the client metadata document is larger than ${maxBytes} bytes`;
      const declared = Number(header(res.headers, 'content-length') ?? 0);
      if (declared > maxBytes) return refused(tooBig);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) return refused(tooBig);
        chunks.push(chunk);
      }
      body = undefined;
      let doc: unknown;
      try {
        doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks)));
      } catch {
        return refused('the client metadata document is not valid JSON');
      }
      const result = checkClientMetadata(doc, clientId);
      if (!result.ok) return { result, ttlMs: CACHE_TTL_MS.failure };
      return { result, ttlMs: cacheTtlMs(header(res.headers, 'cache-control')) };
    } catch (err) {
      if (controller.signal.aborted)
        return refused(`the client metadata document did not arrive within ${within}`);
      if (isRefusedAddress(err))
        return refused(
          'the client metadata host resolves to a private, loopback or reserved address',
        );
      return refused('the client metadata document could not be fetched');
    } finally {
      clearTimeout(timer);
      // Whatever was not read is not wanted: hang up rather than drain a hostile body.
      // Destroying an unread undici body emits an abort error nobody else listens for.
      if (body !== undefined && !body.destroyed) body.on('error', () => {}).destroy();
    }
  }

  return {
    async fetch(clientId) {
      const checked = checkClientIdUrl(clientId, { allowLoopbackHttp: allowLoopback });
      if (!checked.ok) return { ok: false, reason: checked.reason };
      const cached = cache.get(clientId);
      if (cached !== undefined) return cached;
      const pending = inFlight.get(clientId);
      if (pending !== undefined) return pending;
      if (inFlight.size >= FETCH_BOUNDS.maxInFlight)
        return { ok: false, reason: 'too many client metadata documents are being fetched' };
      const loading = load(checked.url, clientId).then(({ result, ttlMs }) => {
        cache.set(clientId, result, ttlMs);
        return result;
      });
      inFlight.set(clientId, loading);
      try {
        return await loading;
      } finally {
        inFlight.delete(clientId);
      }
    },
    close: () => agent.close(),
  };
}
