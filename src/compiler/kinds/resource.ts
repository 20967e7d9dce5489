/**
 * The resource kind: `resource "<uri>" { ... }` (spec-language.md, "Resources and
 * prompts"). Its node row; its checks (a URI or template, exactly one content source, a
 * file inside the spec's folder, a `from=` grant whose arguments the template variables
 * fill, unique URIs and names); and its lowering to ResourceDescriptors from what the
 * check found: the parsed template, the name, the file's bytes (read once, by the
 * check), the grant behind `from=`.
 */
import { NameClaims } from '../name-claims.js';
import { dirname, extname, join } from 'node:path';
import { locatedString, namedSubject, once, propOrChild, SCOPE, TEXT } from '../common-kinds.js';
import type { Diagnostics, Located, Position, Subject } from '../diagnostics.js';
import type {
  ResourceContent,
  ResourceDescriptor,
  ResourceVariable,
  RestrictDescriptor,
  ToolDescriptor,
} from '../descriptor.js';
import { arg, argAt, childrenNamed, prop, propAt, type NodeKind } from '../kdl-reader.js';
import { loadResourceFile } from '../resource-file.js';
import { lastPlainSegment, parseUriTemplate, type UriTemplate } from '../uri-template.js';
import type { CheckedGrant } from './grant.js';

/** `resource "<uri>" ...` as written. */
export interface ResourceSpec {
  /** An absolute URI, or a template with `{var}` segments. */
  readonly uri: Located<string>;
  readonly at: Position;
  readonly name?: Located<string>;
  readonly title?: string;
  readonly describe?: string;
  readonly mime?: Located<string>;
  /** The content sources as given; the checker wants exactly one. */
  readonly file?: Located<string>;
  readonly text?: Located<string>;
  readonly from?: Located<string>;
  readonly scopes: readonly string[];
}

const STRING = { type: 'string' } as const;

export const RESOURCE: NodeKind<ResourceSpec> = {
  args: [{ what: 'a URI or URI template (resource "docs://helpdesk/hours")', type: 'string' }],
  props: {
    name: STRING,
    title: STRING,
    describe: STRING,
    mime: STRING,
    file: STRING,
    text: STRING,
    from: STRING,
  },
  children: {
    kinds: {
      title: once(TEXT),
      describe: once(TEXT),
      file: once(locatedString('a file path relative to the spec')),
      scope: SCOPE,
    },
    where: 'in a resource',
    twice: 'is given twice',
  },
  // Without its URI a resource has nothing to be named by: its children are not read.
  inner: namedSubject('resource'),
  build(n, outer) {
    const ctx = { ...outer, subject: [`resource ${arg<string>(n, 0)!}`] };
    const located = (name: string): Located<string> | undefined => {
      const v = prop<string>(n, name);
      return v === undefined ? undefined : { value: v, at: propAt(n, name) };
    };
    const name = located('name');
    const mime = located('mime');
    const text = located('text');
    const from = located('from');
    const file = propOrChild(n, 'file', ctx);
    const title = propOrChild(n, 'title', ctx)?.value;
    const describe = propOrChild(n, 'describe', ctx)?.value;
    return {
      uri: { value: arg<string>(n, 0)!, at: argAt(n, 0) },
      at: n.at,
      ...(name && { name }),
      ...(title !== undefined && { title }),
      ...(describe !== undefined && { describe }),
      ...(mime && { mime }),
      ...(file && { file }),
      ...(text && { text }),
      ...(from && { from }),
      scopes: childrenNamed<string[]>(n.children, 'scope').flat(),
    };
  },
};

/** Field types a URI variable can be converted to: one scalar, never a list or object. */
const VARIABLE_TYPES: ReadonlySet<string> = new Set(['string', 'integer', 'number', 'boolean']);

/** What the check of one resource found, for prompts that embed it and its lowering. */
export interface CheckedResource {
  readonly spec: ResourceSpec;
  /** `name=`, else the last plain segment, else the grant's tool name. */
  readonly name: string;
  /** The parsed URI; undefined when it was refused. */
  readonly template?: Extract<UriTemplate, { ok: true }>;
  /** The file's bytes, read by the check: the descriptor serves what was checked. */
  readonly bytes?: Buffer;
  /** The grant `from=` names. */
  readonly grant?: CheckedGrant;
}

export function checkResources(
  resources: readonly ResourceSpec[],
  grants: readonly CheckedGrant[],
  specFile: string,
  diag: Diagnostics,
): CheckedResource[] {
  // The first grant of each tool name, as a duplicate name leaves it.
  const byName = new Map<string, CheckedGrant>();
  for (const g of grants) if (!byName.has(g.name)) byName.set(g.name, g);
  const uris = new NameClaims(
    diag,
    'SPEC_DUPLICATE_RESOURCE',
    (uri, line) => `URI ${uri} is already served by the resource at line ${line}`,
  );
  const names = new NameClaims(
    diag,
    'SPEC_DUPLICATE_RESOURCE',
    (name, line) =>
      `name ${JSON.stringify(name)} is already taken by the resource at line ${line}; give one of them name="..."`,
  );
  return resources.map((r) => {
    const subject = [`resource ${r.uri.value}`];
    const checked = checkResource(r, byName, specFile, diag, subject);
    uris.claim(r.uri.value, r.at, r.uri.at, subject);
    names.claim(checked.name, r.at, r.name?.at ?? r.at, subject);
    return checked;
  });
}

function checkResource(
  r: ResourceSpec,
  grants: ReadonlyMap<string, CheckedGrant>,
  specFile: string,
  diag: Diagnostics,
  subject: Subject,
): CheckedResource {
  const parsed = parseUriTemplate(r.uri.value);
  if (!parsed.ok) diag.error('SPEC_RESOURCE_URI', r.uri.at, subject, `URI ${parsed.reason}`);
  const checked: CheckedResource = {
    spec: r,
    name: r.name?.value ?? lastPlainSegment(r.uri.value) ?? r.from?.value ?? r.uri.value,
    ...(parsed.ok && { template: parsed }),
  };
  const sources = [r.file && 'file', r.text && 'text=', r.from && 'from='].filter(Boolean);
  if (sources.length !== 1) {
    diag.error(
      'SPEC_RESOURCE_SOURCE',
      r.at,
      subject,
      sources.length === 0
        ? 'a resource needs one content source: file "<path>", text="..." or from="<tool>"'
        : `a resource has one content source; this one has ${sources.join(' and ')}`,
    );
    return checked;
  }
  const variables = parsed.ok ? parsed.variables : [];
  if (!r.from && variables.length > 0)
    diag.error(
      'SPEC_RESOURCE_SOURCE',
      r.uri.at,
      subject,
      `a template ({${variables[0]}}) needs from="<tool>": only a grant can fill its variables`,
    );
  if (r.file) {
    // Read here, once: the lowering serves these bytes, never a second read of the path.
    const file = loadResourceFile(specFile, r.file.value);
    if (file.ok) return { ...checked, bytes: file.bytes };
    diag.error('SPEC_RESOURCE_FILE', r.file.at, subject, file.reason);
    return checked;
  }
  if (!r.from) return checked;
  if (r.mime)
    diag.error(
      'SPEC_PROPERTY_TYPE',
      r.mime.at,
      subject,
      'mime= does not apply to from= resources: their content is the envelope as application/json',
    );
  const grant = grants.get(r.from.value);
  if (!grant) {
    const known = [...grants.keys()].join(', ');
    diag.error(
      'SPEC_RESOURCE_FROM',
      r.from.at,
      subject,
      `from=${JSON.stringify(r.from.value)} names no tool${known ? ` (tools: ${known})` : ''}`,
    );
    return checked;
  }
  if (parsed.ok) checkVariables(r, variables, grant, diag, subject);
  return { ...checked, grant };
}

/** The grant's arguments a caller supplies (from-claim ones are bound from the token). */
function inputsOf(grant: CheckedGrant) {
  return grant.placements.filter((p) => p.argument.fromClaim === undefined);
}

function checkVariables(
  r: ResourceSpec,
  variables: readonly string[],
  grant: CheckedGrant,
  diag: Diagnostics,
  subject: Subject,
): void {
  const inputs = inputsOf(grant);
  const byName = new Map(inputs.map((p) => [p.argument.name, p]));
  for (const v of variables) {
    const p = byName.get(v);
    if (!p)
      diag.error(
        'SPEC_RESOURCE_FROM',
        r.uri.at,
        subject,
        `variable {${v}} is not an argument of ${grant.name} (its arguments: ${[...byName.keys()].join(', ') || 'none'})`,
      );
    else if (!VARIABLE_TYPES.has(p.argument.type))
      diag.error(
        'SPEC_RESOURCE_FROM',
        r.uri.at,
        subject,
        `variable {${v}} fills ${grant.name}'s ${p.argument.type} argument; a URI variable holds one string, integer, number or boolean`,
      );
  }
  for (const p of inputs)
    if (p.argument.required && !variables.includes(p.argument.name))
      diag.error(
        'SPEC_RESOURCE_FROM',
        r.uri.at,
        subject,
        `${grant.name} requires ${p.argument.name}; the URI needs a {${p.argument.name}} variable`,
      );
}

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.txt': 'text/plain',
  '.html': 'text/html',
};

/** Text when a client can show it as text; every other file is sent as a base64 blob. */
function isTextMime(mime: string): boolean {
  const base = mime.split(';')[0]!.trim().toLowerCase();
  return (
    base.startsWith('text/') ||
    base === 'application/json' ||
    base.endsWith('+json') ||
    base === 'application/xml' ||
    base.endsWith('+xml')
  );
}

/**
 * The resources of a clean spec → ResourceDescriptors. A `from=` resource carries its
 * variables typed by the grant's fields, with the values completion offers.
 */
export function lowerResources(
  resources: readonly CheckedResource[],
  tools: readonly ToolDescriptor[],
  specFile: string,
): ResourceDescriptor[] {
  const toolByName = new Map(tools.map((d) => [d.name, d]));
  return resources.map(({ spec: r, name, template, bytes, grant }) => {
    if (!template) throw new Error(`lowering the unchecked resource ${r.uri.value}`);
    let content: ResourceContent;
    let mimeType: string;
    let file: string | undefined;
    let variables: ResourceVariable[] = [];
    let scopes = r.scopes;
    if (r.from) {
      const tool = toolByName.get(r.from.value)!;
      const inputs = inputsOf(grant!);
      content = { kind: 'tool', tool: tool.name };
      mimeType = 'application/json';
      variables = template.variables.map((name) => {
        const p = inputs.find((i) => i.argument.name === name)!;
        const values = completionValues(
          p.field.enum?.map((e) => e.value),
          tool.restrict.find((x) => x.argument === name),
        );
        return {
          name,
          type: p.argument.type as ResourceVariable['type'],
          ...(values && { values }),
        };
      });
      scopes = [...r.scopes, ...tool.scopes];
    } else if (r.file) {
      if (!bytes) throw new Error(`lowering an unchecked resource file ${r.file.value}`);
      // As the spec names it (relative when the spec path is), like an embedded seed.
      file = join(dirname(specFile), r.file.value);
      mimeType =
        r.mime?.value ??
        MIME_BY_EXTENSION[extname(r.file.value).toLowerCase()] ??
        'application/octet-stream';
      content = isTextMime(mimeType)
        ? { kind: 'text', text: bytes.toString('utf8') }
        : { kind: 'blob', blob: bytes.toString('base64') };
    } else {
      mimeType = r.mime?.value ?? 'text/plain';
      content = { kind: 'text', text: r.text!.value };
    }
    return {
      uri: r.uri.value,
      template: template.variables.length > 0,
      variables,
      literals: template.literals,
      name,
      ...(r.title !== undefined && { title: r.title }),
      ...(r.describe !== undefined && { description: r.describe }),
      mimeType,
      content,
      ...(file !== undefined && { file }),
      scopes: [...new Set(scopes)],
      source: { file: specFile, line: r.at.line, column: r.at.column },
    };
  });
}

/** The values a variable may take, as text: the field's enum, narrowed by `restrict`. */
function completionValues(
  own: readonly unknown[] | undefined,
  restrict: RestrictDescriptor | undefined,
): string[] | undefined {
  const allowed = restrict?.values;
  if (!own && !allowed) return undefined;
  const allowedSet = allowed && new Set<unknown>(allowed);
  const values = own && allowedSet ? own.filter((v) => allowedSet.has(v)) : (own ?? allowed)!;
  return values.map((v) => String(v));
}
