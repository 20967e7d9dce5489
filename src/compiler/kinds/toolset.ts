/**
 * The toolset kind: `toolset "<name>" { describe; tools; resources; prompts }`
 * (spec-language.md, "Toolsets"). Its node rows; its checks (a name for a URL path
 * segment, unique; members that exist, a `*` glob that matches a tool); and its lowering
 * to ToolsetDescriptors whose members are resolved names in spec order, so nothing at
 * serve time matches a glob or looks a name up twice.
 */
import { matchName, NameClaims, takenBy } from '../name-claims.js';
import { namedSubject, once, propOrChild, TEXT } from '../common-kinds.js';
import type { Diagnostics, Located, Position } from '../diagnostics.js';
import type { SourceRef, ToolsetDescriptor } from '../descriptor.js';
import { closestName } from '../closest-name.js';
import { arg, argAt, childrenNamed, type NodeKind } from '../kdl-reader.js';
import type { CheckedGrant } from './grant.js';
import type { CheckedResource } from './resource.js';
import type { CheckedPrompt } from './prompt.js';

/** A toolset's name is the last segment of its URL: lower case, digits and `-`. */
export const TOOLSET_NAME = /^[a-z][a-z0-9-]{0,63}$/;

export interface ToolsetSpec {
  readonly name: Located<string>;
  readonly at: Position;
  readonly describe?: string;
  readonly tools: readonly Located<string>[];
  readonly resources: readonly Located<string>[];
  readonly prompts: readonly Located<string>[];
}

const STRING = { type: 'string' } as const;

function members(what: string): NodeKind<Located<string>[]> {
  return {
    rest: { what, type: 'string' },
    build(n, { diag, subject }) {
      if (n.args.length === 0)
        diag.error('SPEC_MISSING', n.at, subject, `\`${n.name}\` needs at least one ${what}`);
      return n.args.flatMap((a) => (a ? [a as Located<string>] : []));
    },
  };
}

export const TOOLSET: NodeKind<ToolsetSpec> = {
  args: [{ what: 'a toolset name (toolset "triage")', type: 'string' }],
  props: { describe: STRING },
  children: {
    kinds: {
      describe: once(TEXT),
      tools: members('tool name or glob ("read_*")'),
      resources: members('resource URI or template'),
      prompts: members('prompt name'),
    },
    where: 'in a toolset',
    twice: 'is given twice',
  },
  inner: namedSubject('toolset'),
  build(n, outer) {
    const name = arg<string>(n, 0);
    if (name === undefined) return undefined;
    const ctx = { ...outer, subject: [`toolset ${name}`] };
    const describe = propOrChild(n, 'describe', ctx)?.value;
    // `tools` may be given on several lines: each adds members.
    const listed = (kind: string): Located<string>[] =>
      childrenNamed<Located<string>[]>(n.children, kind).flat();
    return {
      name: { value: name, at: argAt(n, 0) },
      at: n.at,
      ...(describe !== undefined && { describe }),
      tools: listed('tools'),
      resources: listed('resources'),
      prompts: listed('prompts'),
    };
  },
};

/** What the check of one toolset found: its members, resolved and in spec order. */
export interface CheckedToolset {
  readonly spec: ToolsetSpec;
  readonly tools: readonly string[];
  readonly resources: readonly string[];
  readonly prompts: readonly string[];
}

/**
 * A `*` in a tools entry stands for any run of characters (none included); every other
 * character is itself. Tool names hold no character a regular expression reads.
 */
function globMatcher(glob: string): (name: string) => boolean {
  const source = glob
    .split('*')
    .map((part) => part.replace(/[.\\^$+?()[\]{}|]/g, '\\$&'))
    .join('.*');
  const re = new RegExp(`^${source}$`);
  return (name) => re.test(name);
}

export function checkToolsets(
  toolsets: readonly ToolsetSpec[],
  grants: readonly CheckedGrant[],
  resources: readonly CheckedResource[],
  prompts: readonly CheckedPrompt[],
  diag: Diagnostics,
): CheckedToolset[] {
  const toolNames = grants.filter((g) => g.makesTool).map((g) => g.name);
  const uris = resources.map((r) => r.spec.uri.value);
  const promptNames = prompts.map((p) => p.spec.name.value);
  const names = new NameClaims(diag, 'SPEC_DUPLICATE_TOOLSET', takenBy('toolset name', 'toolset'));
  return toolsets.map((t) => {
    const subject = [`toolset ${t.name.value}`];
    matchName(
      diag,
      'SPEC_TOOLSET_NAME',
      t.name,
      subject,
      'toolset name',
      TOOLSET_NAME,
      ' (it is the last segment of the URL /mcp/<name>)',
    );
    names.claim(t.name.value, t.at, t.name.at, subject);
    if (t.tools.length + t.resources.length + t.prompts.length === 0)
      diag.error(
        'SPEC_MISSING',
        t.at,
        subject,
        'a toolset needs members: `tools`, `resources` or `prompts`',
      );
    // Members in spec order: a toolset's list is /mcp's with the others left out.
    const pick = (
      known: readonly string[],
      given: readonly Located<string>[],
      what: string,
      glob: boolean,
    ): string[] => {
      const chosen = new Set<string>();
      for (const g of given) {
        if (glob && g.value.includes('*')) {
          const matches = known.filter(globMatcher(g.value));
          if (matches.length === 0)
            diag.error(
              'SPEC_TOOLSET_MEMBER',
              g.at,
              subject,
              `${JSON.stringify(g.value)} matches no tool of this spec`,
            );
          for (const m of matches) chosen.add(m);
          continue;
        }
        if (known.includes(g.value)) {
          chosen.add(g.value);
          continue;
        }
        const near = closestName(g.value, known);
        diag.error(
          'SPEC_TOOLSET_MEMBER',
          g.at,
          subject,
          `no ${what} ${JSON.stringify(g.value)} in this spec${near === undefined ? '' : ` (did you mean ${JSON.stringify(near)}?)`}`,
        );
      }
      return known.filter((k) => chosen.has(k));
    };
    return {
      spec: t,
      tools: pick(toolNames, t.tools, 'tool', true),
      resources: pick(uris, t.resources, 'resource or template', false),
      prompts: pick(promptNames, t.prompts, 'prompt', false),
    };
  });
}

export function lowerToolsets(
  toolsets: readonly CheckedToolset[],
  file: string,
): ToolsetDescriptor[] {
  return toolsets.map((t) => {
    const source: SourceRef = { file, line: t.spec.at.line, column: t.spec.at.column };
    return {
      name: t.spec.name.value,
      ...(t.spec.describe !== undefined && { description: t.spec.describe }),
      tools: t.tools,
      resources: t.resources,
      prompts: t.prompts,
      source,
    };
  });
}
