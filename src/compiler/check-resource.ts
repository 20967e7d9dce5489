/**
 * The meaning of every `resource` (spec-language.md, "Resources and prompts"): a URI or
 * template, exactly one content source, a file inside the spec's folder, a `from=`
 * grant whose arguments the template variables fill, and unique URIs and names.
 */
import type { Diagnostics, Position } from './diagnostics.js';
import { loadResourceFile, rememberCheckedRead } from './resource-file.js';
import { grantsByTool, type GrantArguments, type GrantLookup } from './resource-grants.js';
import type { ResourceSpec, Spec } from './spec-types.js';
import { lastPlainSegment, parseUriTemplate } from './uri-template.js';

/** Field types a URI variable can be converted to: one scalar, never a list or object. */
export const VARIABLE_TYPES: ReadonlySet<string> = new Set([
  'string',
  'integer',
  'number',
  'boolean',
]);

/** A resource's name: `name=`, else the last plain segment, else the grant's tool name. */
export function resourceName(r: ResourceSpec): string {
  return r.name?.value ?? lastPlainSegment(r.uri.value) ?? r.from?.value ?? r.uri.value;
}

export function checkResources(spec: Spec, diag: Diagnostics): void {
  const grants = grantsByTool(spec);
  const uris = new Map<string, Position>();
  const names = new Map<string, Position>();
  for (const r of spec.resources) {
    const subject = [`resource ${r.uri.value}`];
    checkResource(r, spec, grants, diag, subject);
    const firstUri = uris.get(r.uri.value);
    if (firstUri)
      diag.error(
        'SPEC_DUPLICATE_RESOURCE',
        r.uri.at,
        subject,
        `URI ${r.uri.value} is already served by the resource at line ${firstUri.line}`,
      );
    else uris.set(r.uri.value, r.at);
    const name = resourceName(r);
    const firstName = names.get(name);
    if (firstName)
      diag.error(
        'SPEC_DUPLICATE_RESOURCE',
        r.name?.at ?? r.at,
        subject,
        `name ${JSON.stringify(name)} is already taken by the resource at line ${firstName.line}; give one of them name="..."`,
      );
    else names.set(name, r.at);
  }
}

function checkResource(
  r: ResourceSpec,
  spec: Spec,
  grants: GrantLookup,
  diag: Diagnostics,
  subject: readonly string[],
): void {
  const template = parseUriTemplate(r.uri.value);
  if (!template.ok) diag.error('SPEC_RESOURCE_URI', r.uri.at, subject, `URI ${template.reason}`);
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
    return;
  }
  const variables = template.ok ? template.variables : [];
  if (!r.from && variables.length > 0)
    diag.error(
      'SPEC_RESOURCE_SOURCE',
      r.uri.at,
      subject,
      `a template ({${variables[0]}}) needs from="<tool>": only a grant can fill its variables`,
    );
  if (r.file) {
    // Read here, once: the lowering serves these bytes, never a second read of the path.
    const file = loadResourceFile(spec.file, r.file.value);
    if (file.ok) rememberCheckedRead(r, file.bytes);
    else diag.error('SPEC_RESOURCE_FILE', r.file.at, subject, file.reason);
  }
  if (r.from) {
    if (r.mime)
      diag.error(
        'SPEC_PROPERTY_TYPE',
        r.mime.at,
        subject,
        'mime= does not apply to from= resources: their content is the envelope as application/json',
      );
    const grant = grants.get(r.from.value);
    if (!grant) {
      const known = grants.names().join(', ');
      diag.error(
        'SPEC_RESOURCE_FROM',
        r.from.at,
        subject,
        `from=${JSON.stringify(r.from.value)} names no tool${known ? ` (tools: ${known})` : ''}`,
      );
      return;
    }
    if (template.ok) checkVariables(r, variables, grant, diag, subject);
  }
}

function checkVariables(
  r: ResourceSpec,
  variables: readonly string[],
  grant: GrantArguments,
  diag: Diagnostics,
  subject: readonly string[],
): void {
  const byName = new Map(grant.inputs.map((p) => [p.argument.name, p]));
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
  for (const p of grant.inputs)
    if (p.argument.required && !variables.includes(p.argument.name))
      diag.error(
        'SPEC_RESOURCE_FROM',
        r.uri.at,
        subject,
        `${grant.name} requires ${p.argument.name}; the URI needs a {${p.argument.name}} variable`,
      );
}
