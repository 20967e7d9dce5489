/**
 * MCP resources in the engine (spec-language.md, "Resources and prompts"). Matchers are
 * built once at boot: fixed URIs in a Map, each template as a frozen plan of its literals
 * (uri-match.ts), matched in one pass. A URI over the 2 KiB bound is not found before
 * anything looks at it. A read only looks up, checks scopes, and for `from=` converts each variable's text to
 * its field's type and calls the grant through the one pipeline (`Gateway.call`), with
 * the caller's identity: rate limit, restrict, schema and claims all apply. Fixed content
 * (`file`, `text=`) is redacted once, here, with the gateway's redactor: a document that
 * quotes a credential leaves without it, like every result.
 */
import type { ResourceDescriptor, ResourceVariable } from '../../compiler/descriptor.js';
import {
  compileUriPlan,
  matchUri,
  MAX_URI_CHARACTERS,
  overUriBound,
  type UriPlan,
} from '../../compiler/uri-match.js';
import type { CallArguments } from '../call-arguments.js';
import type { RequestScope } from '../call-context.js';
import { engineError, type EngineError } from '../error-catalogue.js';
import type { Done, Failed } from '../execute.js';
import { checkScopes } from '../guards/scopes.js';
import { withoutNumberTexts } from '../../json/number-text.js';
import type { Operation } from '../operation/operation.js';
import type { Redactor } from '../redact.js';
import { clipped, loneSurrogateProblem, MAX_QUOTED_NAME, MAX_QUOTED_URI } from '../refusal-text.js';

/** One entry of `contents` (TextResourceContents or BlobResourceContents). */
export type ResourceContents =
  | { readonly uri: string; readonly mimeType: string; readonly text: string }
  | { readonly uri: string; readonly mimeType: string; readonly blob: string };

export type ResourceRead =
  | {
      readonly ok: true;
      readonly resource: ResourceDescriptor;
      readonly contents: ResourceContents;
    }
  | { readonly ok: false; readonly error: EngineError };

/**
 * Which resources a read may match (a toolset's members, toolsets.ts); every one when
 * absent. A URI is matched against the members only, so a non-member template earlier in
 * the spec does not hide a member one.
 */
export type ServedResources = (resource: ResourceDescriptor) => boolean;

/**
 * How a `from=` read reaches its grant: the gateway's own call, admission included, in a
 * scope that asks nothing (a read is answered at once).
 */
export type CallGrant = (
  op: Operation,
  input: CallArguments,
  scope: RequestScope,
) => Promise<Done | Failed>;

export interface ResourceCatalog {
  /** The resource or template serving `uri`, with the variables' text as written (read decodes it). */
  match(
    uri: string,
    serves?: ServedResources,
  ): { resource: ResourceDescriptor; values: readonly string[] } | undefined;
  /** The resource with exactly this URI or template (completion refers to templates so). */
  byUri(uri: string): ResourceDescriptor | undefined;
  /** `serves` narrows what may match (a toolset's members); a non-member is not found. */
  read(uri: string, scope: RequestScope, serves?: ServedResources): Promise<ResourceRead>;
  /** What a fixed resource serves (redacted), for the projections' prepared answers. */
  fixed(resource: ResourceDescriptor): ResourceContents | undefined;
}

interface Template {
  readonly resource: ResourceDescriptor;
  readonly plan: UriPlan;
}

/** How much of a refused URI an error repeats: enough to recognise it, never megabytes. */
const ECHOED_CHARACTERS = 100;

export function prepareResources(
  resources: readonly ResourceDescriptor[],
  operation: (name: string) => Operation | undefined,
  call: CallGrant,
  redact: Redactor,
): ResourceCatalog {
  const fixed = new Map<string, ResourceDescriptor>();
  const served = new Map<ResourceDescriptor, ResourceContents>();
  for (const r of resources) {
    const contents = fixedContents(r, redact);
    if (contents) served.set(r, contents);
  }
  const templates: Template[] = [];
  const byUri = new Map<string, ResourceDescriptor>();
  for (const r of resources) {
    byUri.set(r.uri, r);
    if (r.template) templates.push({ resource: r, plan: compileUriPlan(r.literals) });
    else fixed.set(r.uri, r);
  }
  const converters = new Map(
    resources.map((r) => [r, r.variables.map((v) => converterOf(v))] as const),
  );

  // Fixed URIs first, then templates in spec order; the first that matches serves.
  const match: ResourceCatalog['match'] = (uri, serves) => {
    if (overUriBound(uri)) return undefined;
    const exact = fixed.get(uri);
    if (exact && (serves === undefined || serves(exact))) return { resource: exact, values: [] };
    for (const t of templates) {
      if (serves !== undefined && !serves(t.resource)) continue;
      const values = matchUri(t.plan, uri);
      if (values) return { resource: t.resource, values };
    }
    return undefined;
  };

  return {
    match,
    byUri: (uri) => byUri.get(uri),
    fixed: (r) => served.get(r),
    async read(uri, scope, serves) {
      // No URI holds one (it has no UTF-8 form to percent-encode); a variable would carry
      // it on to a grant, where a path refuses it and a query sends U+FFFD instead.
      const broken = loneSurrogateProblem(uri);
      if (broken)
        return {
          ok: false,
          error: engineError('INVALID_ARGUMENTS', `the resource URI ${broken}`, {
            details: [{ field: '/uri', message: broken }],
          }),
        };
      const found = match(uri, serves);
      if (!found) return { ok: false, error: notFound(uri) };
      const { resource, values } = found;
      const denied = checkScopes(`resource ${resource.uri}`, resource.scopes, scope.caller);
      if (denied) return { ok: false, error: denied };
      const c = resource.content;
      if (c.kind !== 'tool') return { ok: true, resource, contents: served.get(resource)! };
      const op = operation(c.tool)!;
      const args: Record<string, unknown> = {};
      const convert = converters.get(resource)!;
      for (let i = 0; i < values.length; i++) {
        const v = convert[i]!(values[i]!);
        if (!v.ok) return { ok: false, error: v.error };
        args[resource.variables[i]!.name] = v.value;
      }
      // A number variable is converted to a double, checked as such: no text is kept.
      const out = await call(op, withoutNumberTexts(args), scope);
      if (!out.ok) return out;
      return {
        ok: true,
        resource,
        contents: { uri, mimeType: resource.mimeType, text: out.envelope.json },
      };
    },
  };
}

/** A fixed resource's contents with every spelling of a secret replaced, once at boot. */
function fixedContents(r: ResourceDescriptor, redact: Redactor): ResourceContents | undefined {
  const c = r.content;
  if (c.kind === 'tool') return undefined;
  if (c.kind === 'text') return { uri: r.uri, mimeType: r.mimeType, text: redact.text(c.text) };
  return { uri: r.uri, mimeType: r.mimeType, blob: redactedBlob(c.blob, redact) };
}

/**
 * A binary file is redacted byte for byte: read as latin1 (one character per byte) the
 * bytes around a secret stay as they were; a secret with non-ASCII characters is found
 * in the UTF-8 reading only, which is then what is sent.
 */
function redactedBlob(blob: string, redact: Redactor): string {
  if (!redact.active) return blob;
  const bytes = Buffer.from(blob, 'base64');
  const latin1 = bytes.toString('latin1');
  let out = Buffer.from(redact.text(latin1), 'latin1');
  const utf8 = out.toString('utf8');
  if (redact.found(utf8)) out = Buffer.from(redact.text(utf8), 'utf8');
  return out.equals(bytes) ? blob : out.toString('base64');
}

function notFound(uri: string): EngineError {
  // Quoted clipped: this answer comes before any scope check.
  if (!overUriBound(uri)) {
    const quoted = clipped(uri, MAX_QUOTED_URI);
    return engineError('RESOURCE_NOT_FOUND', `no resource serves ${quoted}`, {
      details: { uri: quoted },
    });
  }
  const echoed = `${uri.slice(0, ECHOED_CHARACTERS)}…`;
  return engineError(
    'RESOURCE_NOT_FOUND',
    `no resource serves ${echoed}: the URI is over 2 KiB (${MAX_URI_CHARACTERS} characters), and a longer URI matches nothing`,
    { details: { uri: echoed } },
  );
}

type Converted = { ok: true; value: unknown } | { ok: false; error: EngineError };

const INTEGER = /^-?(0|[1-9]\d*)$/;
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** A variable's URI text → the grant field's type; refused text names the variable. */
function converterOf(v: ResourceVariable): (raw: string) => Converted {
  const refuse = (raw: string, what: string): Converted => ({
    ok: false,
    error: engineError(
      'INVALID_ARGUMENTS',
      `URI variable ${v.name} must be ${what}, got ${JSON.stringify(clipped(raw, MAX_QUOTED_NAME))}`,
      { details: [{ field: `/${v.name}`, message: `must be ${what}` }] },
    ),
  });
  return (raw) => {
    let text: string;
    try {
      text = decodeURIComponent(raw);
    } catch {
      return refuse(raw, 'valid percent-encoded UTF-8');
    }
    switch (v.type) {
      case 'string':
        return { ok: true, value: text };
      case 'integer': {
        const n = Number(text);
        return INTEGER.test(text) && Number.isSafeInteger(n)
          ? { ok: true, value: n }
          : refuse(text, 'an integer');
      }
      case 'number': {
        const n = Number(text);
        return NUMBER.test(text) && Number.isFinite(n)
          ? { ok: true, value: n }
          : refuse(text, 'a number');
      }
      case 'boolean':
        return text === 'true' || text === 'false'
          ? { ok: true, value: text === 'true' }
          : refuse(text, 'true or false');
    }
  };
}
