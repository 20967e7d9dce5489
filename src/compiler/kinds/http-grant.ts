/**
 * The HTTP backend of a grant (spec-language.md, "Grants"): `path` with its params,
 * `query`, `body` and `set`; where each argument goes (path segment, query key, body
 * key or an `arg=` projection), the checks of all that, and the HttpBackend it lowers
 * to, from the template and placements the check found.
 */
import { locatedString, once } from '../common-kinds.js';
import type { Diagnostics, Located, Subject } from '../diagnostics.js';
import type { BodyFieldDescriptor, HttpBackend, JsonScalar, UpstreamAuth } from '../descriptor.js';
import { PATH_PARAM_MAX_LENGTH, type JsonSchema } from '../field-schema.js';
import type { FieldSpec } from '../field-types.js';
import { headerProblem } from '../headers.js';
import { arg, argAt, prop, propAt, type NodeKind } from '../kdl-reader.js';
import { RESERVED_NAME, reservedMessage } from '../naming.js';
import { HTTP_OUTPUT_SCHEMA } from '../output-schema.js';
import { parseTemplate, type TemplateResult } from '../path-template.js';
import { plain, upstreamOf, type Placement } from '../placement.js';
import {
  blockTable,
  checkExclusive,
  checkFieldValues,
  fieldBlock,
  fieldRow,
  isScalarOrScalarArray,
  isScalarType,
  uniqueFields,
  type FieldBlockSpec,
} from './field.js';
import { BODY_WORDS, checkObjectFields, checkPinnedPath, objectPlacements } from './body-fields.js';
import type {
  BackendCheck,
  CheckedBackend,
  GrantBackend,
  Missing,
  TopSettings,
} from './grant-backend.js';
import { unknownNameMessage } from './upstream.js';
import { SET, type SetSpec } from './set.js';

/** The upstream timeout when neither the grant nor the spec sets one. */
const DEFAULT_TIMEOUT_MS = 10_000;

/** `query encoding="form"`: how query keys and values are escaped (engine/backends/http/url.ts). */
type QuerySpec = EncodedBlock<'percent' | 'form'>;

/** `body encoding="form"`: a form body instead of JSON. */
type BodySpec = EncodedBlock<'json' | 'form'>;

interface EncodedBlock<E extends string> extends FieldBlockSpec {
  readonly encoding?: E;
}

type PathSpec = Located<string> & { readonly params: readonly FieldSpec[] };

/** An HTTP grant's own children, as read. */
interface HttpSpec {
  readonly path?: PathSpec;
  readonly query?: QuerySpec;
  readonly body?: BodySpec;
  readonly set?: Located<readonly SetSpec[]>;
  /** `upstream "<name>"`: a named upstream instead of the default one. */
  readonly upstream?: Located<string>;
}

/** The settings of the upstream an HTTP grant is sent to. */
interface HttpSettings {
  /** The upstream's name; '' for the default one. */
  readonly upstream: string;
  /** Every named upstream, for the messages of a grant that names none or an unknown one. */
  readonly declared: readonly string[];
  /** Named but not declared: the grant makes no tool. */
  readonly unknown?: boolean;
  /** A named upstream's own `timeout` (the default one's is the top-level `timeout`). */
  readonly timeoutMs?: number;
  /** The normalized base-url; '' when it is refused, none when it is not given. */
  readonly baseUrl?: string;
  readonly auth?: UpstreamAuth;
  readonly authHeader?: string;
  readonly headers: readonly (readonly [string, string])[];
}

/** A query or body block: its fields, and an `encoding=` of `allowed` (else refused). */
function encodedBlock<E extends string>(
  block: 'query' | 'body',
  allowed: readonly [E, E],
): NodeKind<EncodedBlock<E>> {
  const label = `${block} field` as const;
  return {
    props: { encoding: { type: 'string' } },
    children: blockTable(label),
    build(n, ctx) {
      const encoding = prop<string>(n, 'encoding');
      const known = allowed.find((e) => e === encoding);
      if (encoding !== undefined && known === undefined)
        ctx.diag.error(
          'SPEC_VALUE_TYPE',
          propAt(n, 'encoding'),
          ctx.subject,
          `${block} encoding=${JSON.stringify(encoding)} must be "${allowed[0]}" or "${allowed[1]}"`,
        );
      return { ...fieldBlock(n, ctx, label), ...(known && { encoding: known }) };
    },
  };
}

const PATH: NodeKind<PathSpec> = {
  args: [{ what: 'a path template', type: 'string' }],
  children: { kinds: {}, other: fieldRow('path param') },
  build(n, ctx) {
    const params = uniqueFields(n.children, ctx, 'path param');
    const template = arg<string>(n, 0);
    return template === undefined ? undefined : { value: template, at: argAt(n, 0), params };
  },
};

export const HTTP_GRANT: GrantBackend<HttpSpec, HttpSettings> = {
  name: 'HTTP',
  marker: 'path',
  needs: '`path` (an HTTP operation)',
  either: 'a path (HTTP)',
  children: {
    path: once(PATH),
    query: once(encodedBlock('query', ['percent', 'form'])),
    body: once(encodedBlock('body', ['json', 'form'])),
    set: once(SET),
    upstream: once(locatedString('an upstream name (upstream "github")')),
  },
  outputSchema: HTTP_OUTPUT_SCHEMA,
  openWorld: true,
  settings: httpSettings,
  blocks(s) {
    return [
      ['path param', s.path?.params ?? []],
      ['query field', s.query?.fields ?? []],
      ['body field', s.body?.fields ?? []],
    ];
  },
  missing: missingUpstream,
  check: checkHttp,
  place(s) {
    const template = s.path && parseTemplate(s.path.value);
    const path = template?.ok ? pathPlacements(s.path!, template.params) : [];
    return [...path, ...queryPlacements(s), ...bodyPlacements(s)];
  },
};

/** The default upstream's settings, or those of the upstream the grant names. */
function httpSettings(top: TopSettings, own: HttpSpec): HttpSettings {
  const declared = [...top.upstreams.keys()];
  const name = own.upstream?.value;
  if (name === undefined) {
    const { baseUrl, auth, authHeader, headers } = top;
    return { upstream: '', declared, baseUrl, auth, authHeader, headers };
  }
  const named = top.upstreams.get(name);
  if (!named) return { upstream: name, declared, unknown: true, headers: [] };
  return { upstream: name, declared, ...named };
}

/** A grant naming an upstream nobody declared, or naming none where there is no default. */
function missingUpstream(s: HttpSpec, settings: HttpSettings): Missing | undefined {
  if (settings.unknown)
    return {
      code: 'SPEC_UNKNOWN_UPSTREAM',
      at: s.upstream!.at,
      message: unknownNameMessage('upstream', settings.upstream, settings.declared),
    };
  if (settings.baseUrl !== undefined) return undefined;
  return {
    code: 'SPEC_NO_BASE_URL',
    at: s.path!.at,
    message:
      settings.declared.length > 0
        ? `the spec has no default upstream (a top-level base-url): name one with \`upstream "<name>"\` (declared: ${settings.declared.join(', ')})`
        : 'an HTTP grant needs a top-level `base-url "https://..."`',
  };
}

/** An HTTP grant whose template cannot be read: its query and body arguments, unchecked. */
function unreadable(s: HttpSpec): CheckedBackend {
  return {
    ok: false,
    placements: [...queryPlacements(s), ...bodyPlacements(s)],
    exclusive: [],
    lower: () => {
      throw new Error('lowering an HTTP grant whose template was refused');
    },
  };
}

function checkHttp(c: BackendCheck<HttpSpec, HttpSettings>): CheckedBackend {
  const { own: s, settings, diag, subject, claims } = c;
  const path = s.path!;
  const template = parseTemplate(path.value);
  if (!template.ok) {
    diag.error(
      'SPEC_PATH_TEMPLATE',
      path.at,
      subject,
      `path ${JSON.stringify(path.value)} ${template.reason}`,
    );
    return unreadable(s);
  }
  for (const p of path.params) {
    if (!template.params.includes(p.name))
      diag.error(
        'SPEC_PATH_PARAM',
        p.at,
        subject,
        `path param ${p.name} is declared but the template ${JSON.stringify(path.value)} has no {${p.name}}`,
      );
  }
  for (const name of template.params)
    if (name === RESERVED_NAME)
      diag.error('SPEC_RESERVED_NAME', path.at, subject, reservedMessage('path param', name));
  const pathPlaced = pathPlacements(path, template.params);
  for (const placed of pathPlaced) {
    if (placed.argument.name === RESERVED_NAME) continue;
    const given = path.params.find((p) => p.name === placed.argument.name);
    if (given) checkPathParam(given, diag, subject);
    claims.claim(placed);
  }

  // Query: scalars and scalar arrays, each under its own upstream key.
  const queryKeys = new Map<string, string>();
  if (settings.auth?.kind === 'query')
    queryKeys.set(settings.auth.param, 'the auth query parameter');
  const queryPlaced = queryPlacements(s);
  for (const placed of queryPlaced) {
    const f = placed.field;
    const here = [...subject, `query field ${f.name}`];
    checkFieldValues(f, diag, subject, 'query field');
    if (!isScalarOrScalarArray(f.type)) {
      diag.error(
        'SPEC_UNKNOWN_TYPE',
        f.typeAt ?? f.at,
        here,
        `type ${f.type} is not allowed in query: query fields take scalars and scalar arrays`,
      );
      continue;
    }
    if (f.arg)
      diag.error('SPEC_ARG_PROJECTION', f.arg.at, here, 'arg= applies to nested body fields only');
    const upstream = upstreamOf(f);
    const taken = queryKeys.get(upstream);
    if (taken)
      diag.error(
        'SPEC_DUPLICATE',
        f.at,
        here,
        `upstream query key ${JSON.stringify(upstream)} is also ${taken}`,
      );
    queryKeys.set(upstream, `query field ${f.name}`);
    claims.claim(placed);
  }
  checkExclusive(s.query, diag, subject);

  const body = checkObjectFields(s.body?.fields ?? [], BODY_WORDS, diag, subject, claims);
  const bodyPlaced = body.placements;
  checkExclusive(s.body, diag, subject);

  checkSet(s, c, queryKeys, body.callerPaths);
  const placements = [...pathPlaced, ...queryPlaced, ...bodyPlaced];
  return {
    ok: true,
    placements,
    exclusive: [s.query, s.body].flatMap(groupsOf),
    lower: (tool) => lowerHttp(s, template, body.trees, tool.method, c),
  };
}

/** A block's `exclusive` groups as argument names. */
function groupsOf(block: FieldBlockSpec | undefined): string[][] {
  return (block?.exclusive ?? []).map((x) => x.value.map((n) => n.value));
}

/** Array path params: items comma-joined in one segment, each percent-encoded. */
const PATH_ARRAYS: ReadonlySet<string> = new Set(['string[]', 'integer[]']);

function checkPathParam(given: FieldSpec, diag: Diagnostics, subject: Subject): void {
  const here = [...subject, `path param ${given.name}`];
  if (!isScalarType(given.type) && !PATH_ARRAYS.has(given.type))
    diag.error(
      'SPEC_PATH_PARAM',
      given.typeAt ?? given.at,
      here,
      `a path param fills one segment: it must be string, integer, number, boolean, string[] or integer[] (items joined with commas), not ${given.type}`,
    );
  if (PATH_ARRAYS.has(given.type) && given.minItems && given.minItems.value < 1)
    diag.error(
      'SPEC_PROPERTY_TYPE',
      given.minItems.at,
      here,
      'an array path param has at least one item: an empty array would empty its segment',
    );
  if (given.default)
    diag.error(
      'SPEC_PROPERTY_TYPE',
      given.default.at,
      here,
      'a path param is always required; it takes no default',
    );
  // from-claim on a path param is allowed: it binds e.g. {tenant} to the token.
  if (given.as)
    diag.error(
      'SPEC_PROPERTY_TYPE',
      given.as.at,
      here,
      'as= does not apply to path params: the template names the segment',
    );
  if (given.arg)
    diag.error(
      'SPEC_PROPERTY_TYPE',
      given.arg.at,
      here,
      'arg= does not apply to path params: a path param is already an argument',
    );
  checkFieldValues(given, diag, subject, 'path param');
}

function checkSet(
  s: HttpSpec,
  { diag, subject, settings: { authHeader } }: BackendCheck<HttpSpec, HttpSettings>,
  queryKeys: Map<string, string>,
  callerPaths: readonly (readonly string[])[],
): void {
  for (const set of s.set?.value ?? []) {
    const here = [...subject, `set ${set.target} ${set.key}`];
    if (set.target === 'query') {
      const taken = queryKeys.get(set.key);
      if (taken)
        diag.error(
          'SPEC_ARGUMENT_COLLISION',
          set.at,
          here,
          `query key ${JSON.stringify(set.key)} is also ${taken}`,
        );
      queryKeys.set(set.key, 'a set query value');
    } else if (set.target === 'header') {
      const problem = headerProblem(set.key, String(set.value), authHeader);
      if (problem) diag.error('SPEC_HEADER', set.at, here, problem);
    } else if (set.target === 'body') {
      checkPinnedPath(set.key, set.at, here, callerPaths, BODY_WORDS, diag);
    } else {
      diag.error(
        'SPEC_GRANT_KIND',
        set.at,
        here,
        '`set arg` belongs to MCP grants; this grant is HTTP (use `set body`)',
      );
    }
  }
}

/** The HttpBackend of a checked grant: its template, body trees and fixed values as found. */
function lowerHttp(
  s: HttpSpec,
  template: Extract<TemplateResult, { ok: true }>,
  fields: readonly BodyFieldDescriptor[],
  method: HttpBackend['method'],
  { grant: g, ctx, settings }: BackendCheck<HttpSpec, HttpSettings>,
): HttpBackend {
  // set: fixed server-side values, never overridable by the caller.
  const headers = new Map(settings.headers.map(([k, v]) => [k.toLowerCase(), [k, v] as const]));
  const setQuery: [string, JsonScalar][] = [];
  const setBody: { path: string[]; value: JsonScalar }[] = [];
  for (const set of s.set?.value ?? []) {
    if (set.target === 'query') setQuery.push([set.key, set.value]);
    else if (set.target === 'header')
      headers.set(set.key.toLowerCase(), [set.key, String(set.value)]);
    else if (set.target === 'body') setBody.push({ path: set.key.split('.'), value: set.value });
  }
  const encoding = s.body?.encoding ?? 'json';
  return {
    kind: 'http',
    upstream: settings.upstream,
    method,
    baseUrl: settings.baseUrl!,
    pathTemplate: s.path!.value,
    path: template.parts,
    ...((s.body || setBody.length > 0) && { body: { encoding, fields } }),
    // A form-speaking upstream reads `+` as a space; any other may read it literally.
    queryEncoding: s.query?.encoding ?? (encoding === 'form' ? 'form' : 'percent'),
    headers: [...headers.values()],
    setQuery,
    setBody,
    ...(settings.auth && { auth: settings.auth }),
    // A named upstream's deadline is its own; the top-level `timeout` is the default one's.
    timeoutMs:
      g.timeoutMs ??
      (settings.upstream === '' ? ctx.timeoutMs : settings.timeoutMs) ??
      DEFAULT_TIMEOUT_MS,
  };
}

/** Path params in template order: a declared child types one, else it is a string. */
function pathPlacements(path: PathSpec, params: readonly string[]): Placement[] {
  return params.map((name) => {
    const given = path.params.find((p) => p.name === name);
    const field: FieldSpec = given
      ? { ...given, required: true }
      : { name, type: 'string', at: path.at, required: true };
    const placed = plain(field, 'path param', 'path', name);
    return { ...placed, schema: placed.schema && pathSchema(field, placed.schema) };
  });
}

/**
 * A path string is 1..1024 characters unless the field says otherwise; an array's items
 * are joined with commas in one segment, so each item is such a string and an empty
 * array (an empty segment) is refused: min-items is at least 1.
 */
function pathSchema(field: FieldSpec, schema: JsonSchema): JsonSchema {
  const lengths = {
    minLength: field.minLength?.value ?? 1,
    maxLength: field.maxLength?.value ?? PATH_PARAM_MAX_LENGTH,
  };
  if (field.type === 'string') return { ...schema, ...lengths };
  if (!field.type.endsWith('[]')) return schema;
  const items = schema.items as JsonSchema;
  return {
    ...schema,
    minItems: Math.max(1, field.minItems?.value ?? 1),
    items: field.type === 'string[]' ? { ...items, ...lengths } : items,
  };
}

function queryPlacements(s: HttpSpec): Placement[] {
  return (s.query?.fields ?? []).map((f) => plain(f, 'query field', 'query', upstreamOf(f)));
}

function bodyPlacements(s: HttpSpec): Placement[] {
  return objectPlacements(s.body?.fields ?? [], 'body field');
}
