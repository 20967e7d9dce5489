/**
 * How `check` and `tools <spec>` show a spec's resources and prompts: `check` one aligned
 * line each (what serves it, what it needs), `tools` a block each as a client's lists show
 * it, and `tools --json` the lists' result objects beside `tools`.
 */
import type { CompiledSpec, PromptDescriptor, ResourceDescriptor } from '../compiler/descriptor.js';
import { KIND_LIST } from '../engine/backends/kinds.js';
import {
  promptDefinition,
  resourceDefinition,
  templateDefinition,
} from '../projection/mcp/resource-definition.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `10 tools, 4 resources, 1 prompt`: resources and prompts only when the spec has them. */
export function specCounts(spec: CompiledSpec): string {
  return [
    `${plural(spec.tools.length, 'tool')}${toolKinds(spec)}`,
    spec.resources.length > 0 ? plural(spec.resources.length, 'resource') : '',
    spec.prompts.length > 0 ? plural(spec.prompts.length, 'prompt') : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/**
 * ` (2 HTTP, 1 MCP on 1 server)`: the grants by kind, said only when the spec declares
 * upstream servers (a spec without them reads as it always has); a kind with servers is
 * counted even when no grant uses it.
 */
function toolKinds(spec: CompiledSpec): string {
  const servers = KIND_LIST.reduce((n, k) => n + (k.servers?.(spec) ?? 0), 0);
  if (servers === 0) return '';
  const counts = new Map<string, number>();
  for (const t of spec.tools) counts.set(t.backend.kind, (counts.get(t.backend.kind) ?? 0) + 1);
  const parts = KIND_LIST.filter((k) => k.servers || counts.has(k.kind)).map(
    (k) => `${counts.get(k.kind) ?? 0} ${k.word}`,
  );
  return ` (${parts.join(', ')} on ${plural(servers, 'server')})`;
}

function sourceOf(r: ResourceDescriptor): string {
  switch (r.content.kind) {
    case 'tool':
      return `from ${r.content.tool}`;
    case 'text':
    case 'blob':
      return r.file !== undefined ? `file ${r.file}` : 'text';
  }
}

const scopeText = (scopes: readonly string[]): string =>
  scopes.length > 0 ? `scope=${scopes.join(',')}` : '';

function argumentsText(p: PromptDescriptor): string {
  if (p.arguments.length === 0) return 'no arguments';
  return `arguments ${p.arguments.map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ')}`;
}

function embedsText(p: PromptDescriptor): string {
  const uris = p.messages.flatMap((m) => ('resource' in m ? [m.resource] : []));
  return uris.length > 0 ? `embeds ${uris.join(', ')}` : '';
}

/** `check`: one line per resource, template and prompt, the columns aligned among them. */
export function resourcePromptCheckLines(spec: CompiledSpec): string[] {
  const rows: (readonly [string, string, string])[] = [
    ...spec.resources.map(
      (r) =>
        [
          r.template ? 'template' : 'resource',
          r.uri,
          [`${sourceOf(r)} (${r.mimeType})`, scopeText(r.scopes)].filter(Boolean).join('  '),
        ] as const,
    ),
    ...spec.prompts.map(
      (p) =>
        [
          'prompt',
          p.name,
          [argumentsText(p), embedsText(p), scopeText(p.scopes)].filter(Boolean).join('  '),
        ] as const,
    ),
  ];
  const kindWidth = Math.max(0, ...rows.map((r) => r[0].length));
  const nameWidth = Math.max(0, ...rows.map((r) => r[1].length));
  return rows.map(([kind, name, rest]) =>
    `  ${kind.padEnd(kindWidth)} ${name.padEnd(nameWidth)}  ${rest}`.trimEnd(),
  );
}

/** `tools <spec>`: one block per resource, template and prompt after the tools. */
export function describeResourcesAndPrompts(spec: CompiledSpec): string {
  const blocks: string[] = [];
  for (const r of spec.resources) {
    const lines = [
      `${r.template ? 'resource template' : 'resource'} ${r.uri} — ${r.title ?? r.name}`,
    ];
    if (r.description) lines.push(`  ${r.description}`);
    lines.push(`    ${r.mimeType}, ${sourceOf(r)}`);
    if (r.template)
      for (const v of r.variables)
        lines.push(
          `    {${v.name}}: ${v.type}${v.values ? `  — one of ${v.values.join(', ')}` : ''}`,
        );
    blocks.push(lines.join('\n'));
  }
  for (const p of spec.prompts) {
    const lines = [`prompt ${p.name} — ${p.title ?? p.name}`];
    if (p.description) lines.push(`  ${p.description}`);
    for (const a of p.arguments) {
      const rules = [
        a.default !== undefined ? `default ${JSON.stringify(a.default)}` : '',
        a.enum ? `one of ${a.enum.join(', ')}` : '',
        a.pattern !== undefined ? `pattern ${a.pattern}` : '',
        a.description ?? '',
      ].filter(Boolean);
      lines.push(
        `    ${a.name}${a.required ? '' : '?'}: string${rules.length > 0 ? `  — ${rules.join('; ')}` : ''}`,
      );
    }
    blocks.push(lines.join('\n'));
  }
  return blocks.map((b) => `${b}\n\n`).join('');
}

/**
 * `tools <spec> --json`: the resources/list, resources/templates/list and prompts/list
 * arrays as the server serves them, beside `tools` (present as the capabilities are:
 * only when the spec has resources, or prompts).
 */
export function resourcePromptLists(spec: CompiledSpec): Record<string, unknown[]> {
  return {
    ...(spec.resources.length > 0 && {
      resources: spec.resources.filter((r) => !r.template).map(resourceDefinition),
      resourceTemplates: spec.resources.filter((r) => r.template).map(templateDefinition),
    }),
    ...(spec.prompts.length > 0 && { prompts: spec.prompts.map(promptDefinition) }),
  };
}
