/**
 * Checked resources → ResourceDescriptors. A file's bytes are those the check read (once
 * per load, and per reload), so a read serves what was prepared. A `from=` resource
 * carries its variables typed by the grant's fields, with the values completion offers.
 */
import { dirname, extname, join } from 'node:path';
import { resourceName } from './check-resource.js';
import type {
  ToolDescriptor,
  ResourceContent,
  ResourceDescriptor,
  ResourceVariable,
  RestrictDescriptor,
} from './descriptor.js';
import { checkedRead } from './resource-file.js';
import { grantsByTool } from './resource-grants.js';
import type { Spec } from './spec-types.js';
import { parseUriTemplate } from './uri-template.js';

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.txt': 'text/plain',
  '.html': 'text/html',
};

/** Text when a client can show it as text; every other file is sent as a base64 blob. */
export function isTextMime(mime: string): boolean {
  const base = mime.split(';')[0]!.trim().toLowerCase();
  return (
    base.startsWith('text/') ||
    base === 'application/json' ||
    base.endsWith('+json') ||
    base === 'application/xml' ||
    base.endsWith('+xml')
  );
}

export function lowerResources(spec: Spec, tools: readonly ToolDescriptor[]): ResourceDescriptor[] {
  const grants = grantsByTool(spec);
  const toolByName = new Map(tools.map((d) => [d.name, d]));
  return spec.resources.map((r) => {
    const template = parseUriTemplate(r.uri.value);
    if (!template.ok) throw new Error(`lowering an unchecked resource: ${template.reason}`);
    let content: ResourceContent;
    let mimeType: string;
    let file: string | undefined;
    let variables: ResourceVariable[] = [];
    let scopes = r.scopes;
    if (r.from) {
      const tool = toolByName.get(r.from.value)!;
      const inputs = grants.get(r.from.value)!.inputs;
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
      const bytes = checkedRead(r);
      if (!bytes) throw new Error(`lowering an unchecked resource file ${r.file.value}`);
      // As the spec names it (relative when the spec path is), like an embedded seed.
      file = join(dirname(spec.file), r.file.value);
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
      name: resourceName(r),
      ...(r.title !== undefined && { title: r.title }),
      ...(r.describe !== undefined && { description: r.describe }),
      mimeType,
      content,
      ...(file !== undefined && { file }),
      scopes: [...new Set(scopes)],
      source: { file: spec.file, line: r.at.line, column: r.at.column },
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
