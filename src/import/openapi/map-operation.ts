/**
 * One selected operation → the parts of one grant: its path template and typed path
 * parameters, query fields, JSON or form body, and a `//` note for each parameter or
 * field left out. An operation that cannot be expressed at all (a method grants do not
 * call, a path our templates cannot hold, a body only as multipart) is skipped whole.
 */
import { headerProblem } from '../../compiler/headers.js';
import { RESERVED_NAME } from '../../compiler/naming.js';
import { parseTemplate } from '../../compiler/path-template.js';
import type { HttpMethod } from '../../compiler/verbs.js';
import type { DraftBlock, DraftField, DraftSet } from './draft-types.js';
import { isObject, type JsonObject } from './json.js';
import type { SchemaMapper } from './map-schema.js';
import {
  fieldName,
  refusedSegment,
  REFUSED_SEGMENTS,
  reservedNote,
  uniqueName,
} from './name-fields.js';
import { asHttpMethod } from './name-tools.js';
import type { Operation } from './select-operations.js';
import { fieldDescription, operationDescription } from './text.js';

export interface MappedOperation {
  readonly method: HttpMethod;
  readonly path: string;
  readonly describe: string;
  readonly pathParams: DraftField[];
  readonly pathNotes: string[];
  readonly query: DraftBlock;
  readonly body?: DraftBlock & { readonly encoding: 'json' | 'form' };
  readonly set?: DraftSet;
  readonly notes: string[];
}

export interface CredentialPlaces {
  /** The query parameter `auth query` fills, when there is one. */
  readonly queryParam?: string;
  /** The header `auth` fills (Authorization for bearer and basic). */
  readonly header?: string;
}

export type OperationResult =
  { ok: true; mapped: MappedOperation } | { ok: false; reason: string; category: string };

const FORM = 'application/x-www-form-urlencoded';

function skip(category: string, reason = category): OperationResult {
  return { ok: false, reason, category };
}

export function mapOperation(
  o: Operation,
  mapper: SchemaMapper,
  credential: CredentialPlaces,
): OperationResult {
  mapper.beginGrant();
  const method = asHttpMethod(o.method);
  if (!method) return skip(`method ${o.method}: grants call GET, POST, PUT, PATCH or DELETE`);
  const params = mergedParameters(o, mapper);
  const notes: string[] = [...params.notes];
  // A read that asks the caller for a secret (a login or token exchange drafted as a
  // "read-only" tool) would have the agent hold a password: leave the operation out. A
  // token or API key parameter where the draft has `auth` is that credential in another
  // place (Slack's `token` beside its OAuth): `auth` sends it, the parameter is left out.
  const hasAuth = credential.header !== undefined || credential.queryParam !== undefined;
  const asksSecret = params.list.find(
    (p) =>
      p.required === true &&
      (p.in === 'query' || p.in === 'path') &&
      secretKind(p.name) !== undefined &&
      (secretKind(p.name) === 'password' || !hasAuth),
  );
  if (asksSecret && (o.method === 'GET' || o.method === 'HEAD'))
    return skip(
      'it asks the caller for a password, secret, token or API key, which an agent should never hold',
      `its ${String(asksSecret.in)} parameter ${asksSecret.name} is a password, secret, token or API key, which an agent should never hold`,
    );
  if (o.op.deprecated === true) notes.unshift('deprecated upstream');
  const taken = new Set<string>();

  // Path: each {param} renamed to an argument name; the segment it fills is the same.
  const renamed = new Map<string, string>();
  // A `#fragment` in a path key is a document's way to list one URL twice; it is never sent.
  // A `?key=value` in it is a fixed query every call sends (one path per RPC action).
  const [pathKey = '', fixedQueryText] = o.path.replace(/#.*$/s, '').split(/\?(.*)/s);
  const fixedQuery = fixedQueryText === undefined ? [] : fixedQueryOf(fixedQueryText);
  if (fixedQuery === undefined)
    return skip(
      'the fixed query in its path key is not key=value pairs',
      `the fixed query in ${JSON.stringify(o.path)} is not key=value pairs`,
    );
  const path = pathKey.replace(/\{([^{}]*)\}/g, (_all, name: string) => {
    const arg = uniqueName(fieldName(name), taken);
    taken.add(arg);
    renamed.set(name, arg);
    return `{${arg}}`;
  });
  const refused = refusedSegment(path);
  if (refused !== undefined)
    return skip(
      `its path has a segment the gateway refuses (${REFUSED_SEGMENTS})`,
      `path ${JSON.stringify(o.path)} has a segment the gateway refuses (${REFUSED_SEGMENTS}): ${JSON.stringify(refused)}`,
    );
  const template = parseTemplate(path);
  if (!template.ok)
    return skip(
      `its path cannot be a template: it ${template.reason}`,
      `path ${JSON.stringify(o.path)} cannot be a template: it ${template.reason}`,
    );
  const pathParams: DraftField[] = [];
  const pathNotes: string[] = [];
  for (const p of params.list.filter((p) => p.in === 'path')) {
    const arg = renamed.get(p.name);
    if (arg === undefined) continue; // declared but not in the template: nothing to fill
    const schema = parameterSchema(p);
    if (!isObject(schema))
      return skip('a path parameter has no schema', `path parameter ${p.name} has no schema`);
    // A grant sends a path array comma-joined (style simple); label and matrix add prefixes.
    if (schema.type === 'array' && p.style !== undefined && p.style !== 'simple')
      return skip(
        `a path parameter array in style ${String(p.style)}: grants send path arrays comma-joined`,
        `path parameter ${p.name} is an array in style ${String(p.style)}`,
      );
    const m = mapper.field({
      name: arg,
      upstream: arg,
      schema,
      required: false,
      ...describeOf(p),
      place: 'path',
      depth: 1,
    });
    if (!m.ok && /\bpattern\b/.test(m.reason)) {
      // Left undeclared, the {param} is a plain string: one segment, 1 to 1024 characters.
      pathNotes.push(`path parameter ${p.name} is a plain string: ${m.reason}`);
      continue;
    }
    if (!m.ok)
      return skip(
        m.reason.startsWith('it is an')
          ? `a path parameter ${m.reason.slice(3)}`
          : 'a path parameter cannot be typed',
        `path parameter ${p.name}: ${m.reason}`,
      );
    pathParams.push(m.field);
  }

  const query: DraftField[] = [];
  const queryNotes: string[] = [];
  const setHeaders: [string, string][] = [];
  const fixedNames = new Set(fixedQuery.map(([k]) => k));
  for (const p of params.list) {
    if (p.in === 'path') continue;
    if (p.in === 'header') {
      const only = p.required === true ? singleValue(p, mapper) : undefined;
      if (only !== undefined && headerProblem(p.name, only, credential.header) === undefined) {
        setHeaders.push([p.name, only]);
        continue;
      }
      const why =
        credential.header !== undefined && p.name.toLowerCase() === credential.header.toLowerCase()
          ? 'auth sends it'
          : 'callers do not set headers (a fixed value goes in `header` or `set { header }`)';
      notes.push(`header parameter ${p.name} left out: ${why}`);
      continue;
    }
    if (p.in === 'cookie') {
      notes.push(`cookie parameter ${p.name} left out: grants do not send cookies`);
      continue;
    }
    if (p.in !== 'query') {
      notes.push(`parameter ${p.name} left out: "in: ${String(p.in)}" is not a place we know`);
      continue;
    }
    if (p.name === RESERVED_NAME) {
      queryNotes.push(`query parameter ${p.name} left out: ${reservedNote(p.name)}`);
      continue;
    }
    if (p.name === credential.queryParam) {
      queryNotes.push(`query parameter ${p.name} left out: auth sends it`);
      continue;
    }
    if (fixedNames.has(p.name)) {
      queryNotes.push(`query parameter ${p.name} left out: the path key fixes its value`);
      continue;
    }
    if (secretKind(p.name) !== undefined) {
      queryNotes.push(
        `query parameter ${p.name} left out: a credential, which an agent should never hold${hasAuth ? " (auth sends the upstream's)" : ''}`,
      );
      continue;
    }
    const why = queryStyleProblem(p, mapper);
    if (why) {
      queryNotes.push(`query parameter ${p.name} left out: ${why}`);
      continue;
    }
    const name = uniqueName(fieldName(p.name), taken);
    const m = mapper.field({
      name,
      upstream: p.name,
      schema: p.schema,
      required: p.required === true,
      ...describeOf(p),
      place: 'query',
      depth: 1,
    });
    if (!m.ok) {
      queryNotes.push(`query parameter ${p.name} left out: ${m.reason}`);
      continue;
    }
    taken.add(name);
    query.push(m.field);
  }

  const body = mapBody(o, mapper, taken, notes);
  if (body && 'reason' in body) return skip(body.category, body.reason);

  return {
    ok: true,
    mapped: {
      method,
      path,
      describe: operationDescription(o.op.summary, o.op.description, `${o.method} ${o.path}.`),
      pathParams,
      pathNotes,
      query: { fields: query, notes: queryNotes },
      ...(body && { body }),
      ...((fixedQuery.length > 0 || setHeaders.length > 0) && {
        set: { query: fixedQuery, header: setHeaders },
      }),
      notes,
    },
  };
}

/**
 * Parameter names that mean a credential, compared without case and separators: a
 * person's secret, or the API's token (which `auth` holds). Only whole names:
 * `pageToken` and `key` (an object key, a sort key) are not secrets.
 */
const SECRET_NAMES = new Map<string, 'password' | 'token'>([
  ...(['password', 'passwd', 'secret', 'clientsecret', 'apisecret', 'privatekey'] as const).map(
    (n) => [n, 'password'] as const,
  ),
  ...(
    [
      'token',
      'accesstoken',
      'refreshtoken',
      'idtoken',
      'authtoken',
      'oauthtoken',
      'sessiontoken',
      'apitoken',
      'apikey',
    ] as const
  ).map((n) => [n, 'token'] as const),
]);

function secretKind(name: string): 'password' | 'token' | undefined {
  return SECRET_NAMES.get(name.toLowerCase().replace(/[^a-z]/g, ''));
}

/** `a=1&b` → [["a","1"],["b",""]]; undefined when a key is empty or not decodable. */
function fixedQueryOf(text: string): [string, string][] | undefined {
  const pairs: [string, string][] = [];
  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    try {
      const key = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
      const value = eq < 0 ? '' : decodeURIComponent(part.slice(eq + 1));
      if (key === '') return undefined;
      pairs.push([key, value]);
    } catch {
      return undefined;
    }
  }
  return pairs;
}

/** The one string a parameter may take (`enum: [x]` or `const: x`), if it has only one. */
function singleValue(p: Parameter, mapper: SchemaMapper): string | undefined {
  const flat = mapper.flatten(p.schema);
  if (flat.kind !== 'schema') return undefined;
  const { s } = flat;
  if (typeof s.const === 'string') return s.const;
  return Array.isArray(s.enum) && s.enum.length === 1 && typeof s.enum[0] === 'string'
    ? s.enum[0]
    : undefined;
}

interface Parameter {
  readonly name: string;
  readonly in: unknown;
  readonly required?: unknown;
  readonly description?: unknown;
  readonly schema?: unknown;
  readonly content?: unknown;
  readonly style?: unknown;
  readonly explode?: unknown;
}

function describeOf(p: Parameter): { describe?: string } {
  const d = fieldDescription(p.description);
  return d === undefined ? {} : { describe: d };
}

/** Path-item parameters overridden by the operation's own (same name and place). */
function mergedParameters(
  o: Operation,
  mapper: SchemaMapper,
): { list: Parameter[]; notes: string[] } {
  const byKey = new Map<string, Parameter>();
  const notes: string[] = [];
  const own = Array.isArray(o.op.parameters) ? o.op.parameters : [];
  for (const raw of [...o.pathParams, ...own]) {
    const r = mapper.deref(raw);
    if (r.dangling) {
      notes.push(`a parameter left out: its $ref ${r.dangling} does not resolve`);
      continue;
    }
    const p = r.s;
    if (!p || typeof p.name !== 'string') continue;
    byKey.set(`${String(p.in)}:${p.name}`, p as unknown as Parameter);
  }
  return { list: [...byKey.values()], notes };
}

/** Why a query parameter's serialization is not ours (we send arrays as repeated keys). */
function queryStyleProblem(p: Parameter, mapper: SchemaMapper): string | undefined {
  if (!isObject(p.schema)) {
    const media = isObject(p.content) ? Object.keys(p.content)[0] : undefined;
    return media ? `it is sent as ${media} text` : 'it has no schema';
  }
  const style = p.style ?? 'form';
  if (style === 'deepObject') return 'it is a deepObject (key[sub]=value) parameter';
  const flat = mapper.flatten(p.schema);
  const isArray = flat.kind === 'schema' && (flat.s.type === 'array' || flat.s.items !== undefined);
  if (isArray && (style !== 'form' || p.explode === false))
    return `its array is sent ${style === 'form' ? 'comma-separated (explode: false)' : `${String(style)}-delimited`}; grants repeat the key`;
  return undefined;
}

/**
 * A path parameter's schema: its own, else the schema of its one `content` entry (a
 * parameter may be described either way; a path segment is text whichever it is).
 */
function parameterSchema(p: Parameter): unknown {
  if (p.schema !== undefined || !isObject(p.content)) return p.schema;
  const media = Object.values(p.content)[0];
  return isObject(media) ? media.schema : undefined;
}

/**
 * The request body as a block of fields, the reason the operation cannot be drafted, or
 * undefined for no body. A body that carries nothing to declare (no schema, or an object
 * with no named fields) is not sent when the operation reads or the body is optional:
 * the grant then says so in `notes`.
 */
function mapBody(
  o: Operation,
  mapper: SchemaMapper,
  taken: Set<string>,
  grantNotes: string[],
): (DraftBlock & { encoding: 'json' | 'form' }) | { reason: string; category: string } | undefined {
  const rb = mapper.deref(o.op.requestBody);
  if (rb.dangling)
    return {
      category: 'its request body $ref does not resolve',
      reason: `its request body $ref ${rb.dangling} does not resolve`,
    };
  const content = rb.s && isObject(rb.s.content) ? rb.s.content : undefined;
  if (!content || Object.keys(content).length === 0) return undefined;
  const types = Object.keys(content);
  const json =
    types.find((t) => /^application\/([\w.+-]*\+)?json\s*(;|$)/i.test(t)) ??
    // `*/*` with an object schema: JSON is what such a document means by it.
    types.find((t) => /^(\*|application)\/\*\s*(;|$)/.test(t) && hasProperties(content[t], mapper));
  const form = types.find((t) => t.toLowerCase().startsWith(FORM));
  const chosen = json ?? form;
  const reads = o.method === 'GET' || o.method === 'HEAD';
  if (!chosen) {
    // A read's optional body of a type grants do not send (`*/*` text, plain text): the
    // read is drafted without it, as a read with no schema for its body is.
    if (reads && rb.s?.required !== true) {
      grantNotes.push(
        `request body not sent: it is only ${types.join(' or ')} and the operation reads`,
      );
      return undefined;
    }
    const reason = `its request body is only ${types.join(' or ')}`;
    return { reason, category: reason };
  }
  const media = content[chosen];
  const schema = isObject(media) ? media.schema : undefined;
  const optional = rb.s?.required !== true || reads;
  if (optional && (schema === undefined || !hasProperties(media, mapper))) {
    grantNotes.push(
      `request body not sent: it ${schema === undefined ? 'has no schema' : 'declares no fields'} and the operation ${o.method === 'GET' || o.method === 'HEAD' ? 'reads' : 'does not require it'}`,
    );
    return undefined;
  }
  const notes: string[] = [];
  const picked = objectSchema(schema, mapper, notes);
  if ('reason' in picked)
    return {
      reason: `its request body ${picked.reason}`,
      category: `its request body ${picked.reason.replace(/:.*$/, '')}`,
    };
  const block = mapper.within(picked.origins, () => mapper.properties(picked.s, 1));
  // Body fields share the tool's argument names with path and query: rename on a clash.
  const fields = block.fields.map((f) => {
    if (!taken.has(f.name)) {
      taken.add(f.name);
      return f;
    }
    const name = uniqueName(fieldName(`body_${f.name}`), taken);
    taken.add(name);
    return { ...f, name, as: f.as ?? f.name };
  });
  return { encoding: chosen === json ? 'json' : 'form', fields, notes: [...notes, ...block.notes] };
}

/** Whether a media type's schema is an object with named fields to declare. */
function hasProperties(media: unknown, mapper: SchemaMapper): boolean {
  if (!isObject(media) || media.schema === undefined) return false;
  const flat = mapper.flatten(media.schema);
  if (flat.kind === 'schema')
    return isObject(flat.s.properties) && Object.keys(flat.s.properties).length > 0;
  // oneOf/anyOf of shapes: objectSchema picks the first object one, or says why not.
  return flat.kind === 'raw';
}

/** The body's object schema; of `oneOf` object shapes, the first (with a note). */
function objectSchema(
  schema: unknown,
  mapper: SchemaMapper,
  notes: string[],
): { s: JsonObject; origins: readonly JsonObject[] } | { reason: string } {
  const flat = mapper.flatten(schema);
  if (flat.kind === 'fail') return { reason: `cannot be typed: ${flat.reason}` };
  if (flat.kind === 'raw') {
    const r = mapper.deref(schema);
    const alts = r.s ? ((r.s.oneOf ?? r.s.anyOf) as unknown) : undefined;
    if (Array.isArray(alts)) {
      for (const alt of alts) {
        const f = mapper.flatten(alt);
        if (f.kind === 'schema' && isObject(f.s.properties)) {
          notes.push(
            `the body takes one of ${alts.length} shapes; this grant sends the first object one`,
          );
          return f;
        }
      }
    }
    return { reason: `cannot be typed: ${flat.why}` };
  }
  const s = flat.s;
  if (!isObject(s.properties) || Object.keys(s.properties).length === 0) {
    const t = s.type ?? (s.items ? 'array' : undefined);
    return {
      reason:
        t === undefined || t === 'object'
          ? 'is a free-form object (no named fields to declare)'
          : `is a JSON ${Array.isArray(t) ? t.join('|') : String(t)}, not an object of named fields`,
    };
  }
  return flat;
}
