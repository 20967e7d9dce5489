/**
 * MCP resources in the engine (spec-language.md, "Resources and prompts"). Matchers are
 * built once at boot: fixed URIs in a Map, each template as one anchored expression. A
 * read only looks up, checks scopes, and for `from=` converts each variable's text to
 * its field's type and calls the grant through the one pipeline (`Gateway.call`), with
 * the caller's identity: rate limit, restrict, schema and claims all apply.
 */
import type { ResourceDescriptor, ResourceVariable } from '../spec/descriptor.js';
import { templatePattern } from '../spec/uri-template.js';
import type { CallContext } from './call-context.js';
import type { Caller } from './caller.js';
import { engineError, type EngineError } from './error-catalogue.js';
import type { Outcome } from './execute.js';
import { checkScopes } from './guards/scopes.js';
import type { Operation } from './operation.js';
import { clipped, loneSurrogateProblem, MAX_QUOTED_NAME, MAX_QUOTED_URI } from './refusal-text.js';

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

/** How a `from=` read reaches its grant: the gateway's own call, admission included. */
export type CallGrant = (
  op: Operation,
  input: Record<string, unknown>,
  caller: Caller,
  ctx: CallContext,
) => Promise<Outcome>;

export interface ResourceCatalog {
  /** The resource or template serving `uri`, with the variables' text (decoded). */
  match(uri: string): { resource: ResourceDescriptor; values: readonly string[] } | undefined;
  /** The resource with exactly this URI or template (completion refers to templates so). */
  byUri(uri: string): ResourceDescriptor | undefined;
  read(uri: string, caller: Caller, ctx: CallContext): Promise<ResourceRead>;
}

interface Template {
  readonly resource: ResourceDescriptor;
  readonly pattern: RegExp;
}

export function prepareResources(
  resources: readonly ResourceDescriptor[],
  operation: (name: string) => Operation | undefined,
  call: CallGrant,
): ResourceCatalog {
  const fixed = new Map<string, ResourceDescriptor>();
  const templates: Template[] = [];
  const byUri = new Map<string, ResourceDescriptor>();
  for (const r of resources) {
    byUri.set(r.uri, r);
    if (r.template)
      templates.push({ resource: r, pattern: new RegExp(templatePattern(r.literals)) });
    else fixed.set(r.uri, r);
  }
  const converters = new Map(
    resources.map((r) => [r, r.variables.map((v) => converterOf(v))] as const),
  );

  const match: ResourceCatalog['match'] = (uri) => {
    const exact = fixed.get(uri);
    if (exact) return { resource: exact, values: [] };
    for (const t of templates) {
      const m = t.pattern.exec(uri);
      if (m) return { resource: t.resource, values: m.slice(1) };
    }
    return undefined;
  };

  return {
    match,
    byUri: (uri) => byUri.get(uri),
    async read(uri, caller, ctx) {
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
      const found = match(uri);
      if (!found) {
        // Quoted clipped: this answer comes before any scope check.
        const quoted = clipped(uri, MAX_QUOTED_URI);
        return {
          ok: false,
          error: engineError('RESOURCE_NOT_FOUND', `no resource serves ${quoted}`, {
            details: { uri: quoted },
          }),
        };
      }
      const { resource, values } = found;
      const denied = checkScopes(`resource ${resource.uri}`, resource.scopes, caller);
      if (denied) return { ok: false, error: denied };
      const c = resource.content;
      if (c.kind === 'text')
        return { ok: true, resource, contents: { uri, mimeType: resource.mimeType, text: c.text } };
      if (c.kind === 'blob')
        return { ok: true, resource, contents: { uri, mimeType: resource.mimeType, blob: c.blob } };
      const op = operation(c.tool)!;
      const args: Record<string, unknown> = {};
      const convert = converters.get(resource)!;
      for (let i = 0; i < values.length; i++) {
        const v = convert[i]!(values[i]!);
        if (!v.ok) return { ok: false, error: v.error };
        args[resource.variables[i]!.name] = v.value;
      }
      const out = await call(op, args, caller, ctx);
      if (!out.ok) return out;
      return {
        ok: true,
        resource,
        contents: { uri, mimeType: resource.mimeType, text: out.envelope.json },
      };
    },
  };
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
