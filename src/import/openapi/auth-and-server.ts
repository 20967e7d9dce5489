/**
 * The top of the draft: `wrap`, `base-url` from the first server, and `auth` from the
 * security scheme the selected operations use most, with environment variable names
 * derived from the API's title (GitHub → GITHUB_TOKEN).
 */
import { headerProblem } from '../../compiler/headers.js';
import type { DraftAuth } from './draft-types.js';
import { isObject, type JsonObject } from './json.js';
import type { Operation } from './select-operations.js';

/** Title words as written: `GitHub` is one word here, not `git hub`. */
function titleWords(title: string): string[] {
  return title
    .replace(/['’]s\b/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Words in a title that say what kind of document it is, not which API. */
const GENERIC = new Set(
  'a an and api apis the of for official openapi swagger spec specs specification description definition definitions rest restful http https json service services server extension extensions reference sample example demo document docs version'.split(
    ' ',
  ),
);

/** `GitHub's official OpenAPI spec` → GITHUB; `Train Travel API` → TRAIN_TRAVEL. */
export function envPrefix(title: string): string {
  const kept: string[] = [];
  for (const w of titleWords(title)) {
    if (GENERIC.has(w) || /^v?\d+$/.test(w)) {
      if (kept.length > 0) break;
      continue;
    }
    kept.push(w.toUpperCase());
    if (kept.length === 2) break;
  }
  return kept.length > 0 ? kept.join('_') : 'API';
}

/** `GitHub's official OpenAPI spec` → github (the `wrap` name: the API's own words). */
export function serverName(title: string): string {
  return envPrefix(title).toLowerCase().replace(/_/g, '-');
}

export interface AuthChoice {
  readonly auth?: DraftAuth;
  readonly notes: string[];
}

export function chooseAuth(doc: JsonObject, ops: readonly Operation[], prefix: string): AuthChoice {
  const components = isObject(doc.components) ? doc.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  const names = Object.keys(schemes);
  if (names.length === 0)
    return {
      notes: [
        `The document declares no security scheme. If the API takes a credential, add one, e.g.`,
        `auth bearer env="${prefix}_TOKEN"`,
      ],
    };
  const uses = new Map<string, number>();
  const together = new Map<string, Set<string>>();
  for (const o of ops) {
    const reqs = Array.isArray(o.op.security) ? o.op.security : doc.security;
    if (!Array.isArray(reqs)) continue;
    const first = reqs.find((r) => isObject(r) && Object.keys(r).length > 0);
    if (!isObject(first)) continue;
    const keys = Object.keys(first);
    for (const k of keys) {
      uses.set(k, (uses.get(k) ?? 0) + 1);
      const rest = together.get(k) ?? new Set<string>();
      for (const j of keys) if (j !== k) rest.add(j);
      together.set(k, rest);
    }
  }
  const ranked = names
    .filter((n) => uses.has(n))
    .sort((a, b) => uses.get(b)! - uses.get(a)! || names.indexOf(a) - names.indexOf(b));
  const notes: string[] = [];
  const chosen = ranked[0] ?? names[0]!;
  if (ranked.length === 0)
    notes.push(`No operation names a security scheme; this uses the first declared, ${chosen}.`);
  const also = [...(together.get(chosen) ?? [])];
  if (also.length > 0)
    notes.push(
      `Operations also need ${also.join(', ')}, which one auth cannot send; add it by hand.`,
    );
  for (const other of ranked.slice(1))
    notes.push(`Some operations use the security scheme ${other} instead of ${chosen}.`);
  const scheme = schemes[chosen];
  const mapped = isObject(scheme) ? mapScheme(chosen, scheme, prefix) : undefined;
  if (!mapped || 'note' in mapped) {
    notes.push(mapped?.note ?? `The security scheme ${chosen} cannot be read.`);
    return { notes };
  }
  if (mapped.note2) notes.push(mapped.note2);
  return { auth: mapped.auth, notes };
}

function mapScheme(
  name: string,
  s: JsonObject,
  prefix: string,
): { auth: DraftAuth; note2?: string } | { note: string } {
  const type = String(s.type ?? '');
  const scheme = String(s.scheme ?? '').toLowerCase();
  if (type === 'http' && scheme === 'bearer')
    return { auth: { kind: 'bearer', env: `${prefix}_TOKEN` } };
  if (type === 'http' && scheme === 'basic')
    return {
      auth: { kind: 'basic', usernameEnv: `${prefix}_USERNAME`, passwordEnv: `${prefix}_PASSWORD` },
    };
  if (type === 'apiKey' && typeof s.name === 'string') {
    const env = `${prefix}_API_KEY`;
    if (s.in === 'query') return { auth: { kind: 'query', param: s.name, env } };
    if (s.in === 'header') {
      const problem = headerProblem(s.name, '', undefined);
      if (problem) return { note: `The API key header of ${name} cannot be sent: ${problem}.` };
      return { auth: { kind: 'header', header: s.name, env } };
    }
    return { note: `The API key of ${name} goes in a ${String(s.in)}, which auth cannot fill.` };
  }
  if (type === 'oauth2' || type === 'openIdConnect')
    return {
      auth: { kind: 'bearer', env: `${prefix}_TOKEN` },
      note2: `${name} is ${type}: put an access token obtained outside the gateway in ${prefix}_TOKEN.`,
    };
  return { note: `The security scheme ${name} (${type} ${scheme}) is not one auth can send.` };
}

export interface BaseUrlChoice {
  readonly url: string;
  readonly notes: string[];
}

/** The first server's URL, its variables at their defaults; a placeholder when it is relative. */
export function chooseBaseUrl(doc: JsonObject, override: string | undefined): BaseUrlChoice {
  if (override !== undefined) return { url: override.replace(/\/+$/, ''), notes: [] };
  const servers = Array.isArray(doc.servers) ? doc.servers : [];
  const first = servers.find((s) => isObject(s) && typeof s.url === 'string') as
    JsonObject | undefined;
  const placeholder = 'https://example.invalid';
  if (!first)
    return {
      url: placeholder,
      notes: [
        'The document names no server: set the upstream URL here, or import with --base-url.',
      ],
    };
  const vars = isObject(first.variables) ? first.variables : {};
  let missing = '';
  const text = String(first.url).replace(/\{([^{}]+)\}/g, (all, v: string) => {
    const d = isObject(vars[v]) ? vars[v].default : undefined;
    if (typeof d === 'string' || typeof d === 'number') return String(d);
    missing ||= v;
    return all;
  });
  // `//host/base` is what a Swagger 2.0 `host` without `schemes` becomes: the host is
  // the document's own word, the scheme is not, and https is the safe guess.
  const schemeless = text.startsWith('//') && !text.startsWith('///');
  let url: URL | undefined;
  try {
    url = new URL(schemeless ? `https:${text}` : text);
  } catch {
    url = undefined;
  }
  if (missing || !url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    const pathOnly =
      text.startsWith('/') && !schemeless
        ? text
            .replace(/[?#].*$/, '')
            .replace(/\/{2,}/g, '/')
            .replace(/\/+$/, '')
        : '';
    return {
      url: `${placeholder}${pathOnly}`,
      notes: [
        `The first server, ${JSON.stringify(String(first.url))}, is not an absolute http(s) URL: set the upstream here, or import with --base-url.`,
      ],
    };
  }
  const notes: string[] = [];
  if (schemeless)
    notes.push(
      `The first server, ${JSON.stringify(String(first.url))}, names no scheme: https is assumed.`,
    );
  if (url.search || url.hash) notes.push(`The server URL's query or fragment is left out.`);
  if (url.username || url.password)
    notes.push('The server URL carried credentials; they belong in auth.');
  const path = url.pathname.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  return { url: `${url.origin}${path}`, notes };
}
