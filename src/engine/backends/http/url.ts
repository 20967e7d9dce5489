/**
 * Upstream URL building (security.md, "Path values"): each path value is
 * percent-encoded inside its one segment, beside the template's literal text (`{id}.json`);
 * an array's items are encoded one by one and joined with commas; query arrays become repeated keys in the
 * caller's order; the result's origin and path prefix are asserted equal to the
 * base-url's before anything is sent. Query keys and values are percent-encoded
 * (RFC 3986: a space is `%20`, which every server reads as a space) unless the grant
 * says form, where a space is `+` (some upstreams read a `+` literally).
 */
import type { ArgumentDescriptor, HttpBackend, JsonScalar } from '../../../compiler/descriptor.js';
import { formComponent, percentComponent } from '../upstream/query-encoding.js';

export interface UrlPlan {
  readonly origin: string;
  /** The base-url's path prefix, without trailing slash ('' for none). */
  readonly prefix: string;
  readonly backend: HttpBackend;
  readonly query: readonly ArgumentDescriptor[];
  /** The grant's query escaping: percentComponent or formComponent. */
  readonly component: (s: string) => string;
  /**
   * Fixed pairs appended after the caller's (set { query } then the credential),
   * encoded once at boot with `component`: `k=v&k2=v2`, '' for none.
   */
  readonly fixedQuery: string;
  /** How many `/`-separated parts a built path has (the template's). */
  readonly pathParts: number;
}

export function planUrl(
  backend: HttpBackend,
  args: readonly ArgumentDescriptor[],
  credentialQuery: readonly (readonly [string, string])[],
  base: { readonly origin: string; readonly pathname: string } = new URL(backend.baseUrl),
): UrlPlan {
  const prefix = base.pathname.replace(/\/+$/, '');
  const component = queryComponent(backend.queryEncoding);
  return {
    origin: base.origin,
    prefix,
    backend,
    query: args.filter((a) => a.in === 'query'),
    component,
    fixedQuery: [
      ...backend.setQuery.map(([k, v]) => [k, scalarText(v)] as const),
      ...credentialQuery,
    ]
      .map(([k, v]) => `${component(k)}=${component(v)}`)
      .join('&'),
    pathParts: (prefix + backend.pathTemplate).split('/').length,
  };
}

export function queryComponent(encoding: 'percent' | 'form'): (s: string) => string {
  return encoding === 'form' ? formComponent : percentComponent;
}

function scalarText(v: JsonScalar): string {
  return v === null ? '' : String(v);
}

/**
 * One path value, or one item of an array path value, as percent-encoded text: nothing
 * that separates segments or items survives (`/` is `%2F`, `,` is `%2C`).
 */
function pathItem(v: unknown): string {
  return encodeURIComponent(String(v));
}

/** The request target (path + query) relative to the origin. */
export function buildTarget(plan: UrlPlan, args: Record<string, unknown>): string {
  let path = plan.prefix;
  for (const part of plan.backend.path) {
    if ('literal' in part) path += part.literal;
    else {
      const v = args[part.param];
      path += Array.isArray(v) ? v.map(pathItem).join(',') : pathItem(v);
    }
  }
  if (plan.query.length === 0) return plan.fixedQuery ? `${path}?${plan.fixedQuery}` : path;
  const { component } = plan;
  const pairs: string[] = [];
  for (const a of plan.query) {
    const v = Object.hasOwn(args, a.name) ? args[a.name] : undefined;
    if (v === undefined) continue;
    const key = component(a.upstream);
    if (Array.isArray(v)) for (const item of v) pairs.push(`${key}=${component(String(item))}`);
    else pairs.push(`${key}=${component(String(v))}`);
  }
  const callerQuery = pairs.join('&');
  const query =
    callerQuery && plan.fixedQuery
      ? `${callerQuery}&${plan.fixedQuery}`
      : callerQuery || plan.fixedQuery;
  return query ? `${path}?${query}` : path;
}

/**
 * A path WHATWG URL parsing keeps as it is, resolved against an http(s) origin: it
 * starts with one `/` (two would name another host), holds only unreserved characters,
 * sub-delims, `:` `@` `/` and `%` (none of them is percent-encoded in a path, and an
 * escape is not decoded), and has no dot segment, spelled `.` or with `%2e`, to be
 * removed. Every built path of a grant whose values passed the gate is one; anything
 * else is parsed by URL, so the verdict is the parser's either way.
 */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)|%2e/i;

function keptByUrlParsing(pathname: string): boolean {
  return PLAIN_PATH.test(pathname) && !DOT_SEGMENT.test(pathname);
}

/**
 * Whatever the arguments, the URL must stay on the base-url's origin and under its
 * prefix, with the template's number of segments. A broken invariant here is a bug in
 * the gate or the encoder, so it is reported, never sent. A plain path (above) is
 * checked without building a URL object, which showed in profiles of every HTTP call.
 */
export function targetEscapes(plan: UrlPlan, target: string): string | undefined {
  const q = target.indexOf('?');
  const pathname = q < 0 ? target : target.slice(0, q);
  if (!keptByUrlParsing(pathname)) {
    let url: URL;
    try {
      url = new URL(target, plan.origin);
    } catch {
      return 'the built URL does not parse';
    }
    if (url.origin !== plan.origin) return `the built URL left the origin ${plan.origin}`;
    if (url.pathname !== pathname) return 'the built path was changed by URL normalization';
  }
  if (plan.prefix && pathname !== plan.prefix && !pathname.startsWith(`${plan.prefix}/`))
    return `the built path left the prefix ${plan.prefix}`;
  if (partsOf(pathname) !== plan.pathParts) return 'a path value spans more than one segment';
  return undefined;
}

/** `pathname.split('/').length`, counted without making the array of parts. */
function partsOf(pathname: string): number {
  let parts = 1;
  for (let i = pathname.indexOf('/'); i >= 0; i = pathname.indexOf('/', i + 1)) parts++;
  return parts;
}
