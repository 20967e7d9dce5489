/**
 * Tool names an agent reads well: the verb from the operation (its operationId when
 * that starts with one of our verbs, else its method), the resource from the path's
 * nouns, a noun before a `{param}` made singular: GET /repos/{owner}/{repo}/issues →
 * `list repo-issues` → `list_repo_issues`. Collisions are settled by document order
 * alone, so the same document always gives the same names.
 */
import { TOOL_NAME, toolName } from '../../compiler/naming.js';
import { behaviourOf, isHttpMethod, methodOfVerb, type HttpMethod } from '../../compiler/verbs.js';

export interface ToolNaming {
  readonly verb: string;
  readonly resource: string;
  /** Set when the verb does not imply the operation's method (`update` sent as PUT). */
  readonly method?: HttpMethod;
}

export interface NamedOperation {
  readonly method: HttpMethod;
  readonly path: string;
  readonly operationId?: string;
}

const DEFAULT_VERB: Record<Exclude<HttpMethod, 'GET'>, string> = {
  POST: 'create',
  PATCH: 'update',
  PUT: 'replace',
  DELETE: 'delete',
};

/** `findPetsByStatus` → find pets by status; `list-for-repo` → list for repo. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

export function singular(word: string): string {
  if (word.length <= 3 || /(ss|us|is|ics|news)$/.test(word)) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/aches$/.test(word)) return word.slice(0, -1); // caches → cache
  if (/(ss|sh|ch|x|z|us)es$/.test(word)) return word.slice(0, -2); // branches, statuses
  if (word.endsWith('s')) return word.slice(0, -1);
  return word;
}

const VERSION = /^v\d+([._-]?\d+)*$|^\d+(\.\d+)*$/;

/** A segment a value starts (`{id}`, `{id}.json`, `{base}...{head}`) names an item, not a noun. */
function isParam(segment: string): boolean {
  return /^\{[^{}]+\}/.test(segment);
}

/** A segment with a value anywhere in it (`docket.{format}`) addresses one item. */
function holdsParam(segment: string): boolean {
  return segment.includes('{');
}

/**
 * Whether a verb's hints are at least as cautious as the method's: never "read-only" for
 * a write, never "not destructive" for a destructive method, and never "idempotent" for
 * a method that is not (a POST drafted as `delete`, a PATCH as `set`: a client that
 * trusts idempotentHint retries them).
 */
export function cautious(verbMethod: HttpMethod, method: HttpMethod): boolean {
  const v = behaviourOf(verbMethod);
  const m = behaviourOf(method);
  return (
    (!v.readOnly || m.readOnly) &&
    (v.destructive || !m.destructive) &&
    (!v.idempotent || m.idempotent)
  );
}

function opIdWords(operationId: string | undefined): { all: string[]; last: string[] } {
  if (!operationId) return { all: [], last: [] };
  const lastSegment = operationId.split(/[/.]/).filter(Boolean).pop() ?? operationId;
  return { all: words(operationId), last: words(lastSegment) };
}

export function nameOperation(op: NamedOperation): ToolNaming {
  // A path key may carry a fixed query or a fragment (`/#X-Amz-Target=Svc.AcceptHandshake`,
  // one path per RPC): that text names the wire format, not the resource, so the name
  // comes from the path before it and the operationId.
  const segments = op.path
    .replace(/[?#].*$/s, '')
    .split('/')
    .filter(Boolean);
  const ids = opIdWords(op.operationId);
  let verb: string | undefined;
  let method: HttpMethod | undefined;
  let verbSegment = -1;
  const first = ids.last[0];
  const firstMethod = first === undefined ? undefined : methodOfVerb(first);
  if (first !== undefined && firstMethod !== undefined && cautious(firstMethod, op.method)) {
    verb = first;
    if (firstMethod !== op.method) method = op.method;
  } else if (op.method === 'GET') {
    verbSegment = segments.findIndex((s) => methodOfVerb(s) === 'GET');
    if (verbSegment >= 0) verb = segments[verbSegment]!;
  }
  if (verb === undefined) {
    verb =
      op.method === 'GET'
        ? holdsParam(segments[segments.length - 1] ?? '') || segments.length === 0
          ? 'get'
          : 'list'
        : DEFAULT_VERB[op.method];
  }
  const nouns: string[] = [];
  // `create` makes one of the collection: POST /orders → create order.
  const oneOf = methodOfVerb(verb) === 'POST' && !holdsParam(segments[segments.length - 1] ?? '{}');
  segments.forEach((segment, i) => {
    if (isParam(segment) || i === verbSegment) return;
    // `docket.{format}`: the noun is the literal text before the value.
    let w = words(segment.replace(/\{.*$/, ''));
    if (VERSION.test(segment) || (nouns.length === 0 && segment.toLowerCase() === 'api')) return;
    if (w[0] === verb && w.length > 1) w = w.slice(1);
    const last = i === segments.length - 1;
    if ((isParam(segments[i + 1] ?? '') || (last && oneOf)) && w.length > 0)
      w[w.length - 1] = singular(w[w.length - 1]!);
    for (const x of w) if (nouns[nouns.length - 1] !== x) nouns.push(x);
  });
  if (nouns.length === 0) {
    const fromId = ids.last.filter((w) => w !== verb);
    nouns.push(...(fromId.length > 0 ? fromId : ['root']));
  }
  return { verb, resource: fitResource(verb, nouns), ...(method && { method }) };
}

/** Drops leading nouns (then cuts) until `<verb>_<resource>` fits in 64 characters. */
function fitResource(verb: string, nouns: string[]): string {
  let rest = [...nouns];
  while (rest.length > 1 && verb.length + 1 + rest.join('-').length > 64) rest = rest.slice(1);
  return rest.join('-').slice(0, 63 - verb.length);
}

const STOPWORDS = new Set([
  'a',
  'an',
  'the',
  'for',
  'by',
  'of',
  'in',
  'on',
  'to',
  'with',
  'and',
  'or',
]);

/** The resource plus the operationId's words it lacks; undefined when those say nothing. */
function distinguished(naming: ToolNaming, operationId: string | undefined): string | undefined {
  const have = new Set([naming.verb, ...naming.resource.split('-')].map(singular));
  let extra = opIdWords(operationId).last.filter(
    (w, i, all) => !have.has(singular(w)) && all.indexOf(w) === i,
  );
  if (extra.every((w) => STOPWORDS.has(w))) return undefined;
  while (extra.length > 0 && STOPWORDS.has(extra[extra.length - 1]!)) extra = extra.slice(0, -1);
  if (extra.length === 0) return undefined;
  return fitResource(naming.verb, [...naming.resource.split('-'), ...extra]);
}

export interface Rename {
  readonly source: string;
  readonly from: string;
  readonly to: string;
}

/**
 * Makes every tool name unique. When several operations would share a name, each takes
 * the name its operationId gives (`list_repos_for_user`) if that is free; what is left
 * keeps the name in document order, the later ones numbered `_2`, `_3`.
 */
export function uniqueToolNames<
  T extends { naming: ToolNaming; op: NamedOperation; source: string },
>(items: readonly T[]): { namings: ToolNaming[]; renames: Rename[] } {
  const base = items.map((x) => toolName(x.naming.verb, x.naming.resource));
  const count = new Map<string, number>();
  for (const n of base) count.set(n, (count.get(n) ?? 0) + 1);
  const taken = new Set(base.filter((n) => count.get(n) === 1));
  const out: ToolNaming[] = items.map((x) => x.naming);
  const renames: Rename[] = [];
  // First pass: colliding operations add what their operationId says beyond the shared
  // name (`get_user` + users/get-by-username → `get_user_by_username`) where that is free.
  const pending: number[] = [];
  items.forEach((x, i) => {
    if (count.get(base[i]!) === 1) return;
    const resource = distinguished(x.naming, x.op.operationId);
    const alt = resource ? toolName(x.naming.verb, resource) : '';
    if (resource && TOOL_NAME.test(alt) && !taken.has(alt) && !count.has(alt)) {
      taken.add(alt);
      out[i] = { ...x.naming, resource };
      renames.push({ source: x.source, from: base[i]!, to: alt });
    } else pending.push(i);
  });
  // Second pass, in document order: the base name if still free, else numbered.
  for (const i of pending) {
    const x = items[i]!;
    let resource = x.naming.resource;
    for (let n = 2; taken.has(toolName(x.naming.verb, resource)); n++) {
      const suffix = `-${n}`;
      resource = `${x.naming.resource.slice(0, 63 - x.naming.verb.length - suffix.length)}${suffix}`;
    }
    taken.add(toolName(x.naming.verb, resource));
    out[i] = { ...x.naming, resource };
    if (resource !== x.naming.resource)
      renames.push({ source: x.source, from: base[i]!, to: toolName(x.naming.verb, resource) });
  }
  return { namings: out, renames };
}

export function asHttpMethod(m: string): HttpMethod | undefined {
  const upper = m.toUpperCase();
  return isHttpMethod(upper) ? upper : undefined;
}
