/**
 * The `resource "<uri>" { ... }` node kind (spec-language.md, "Resources and prompts").
 * Shape only: which content source is given, whether the URI is well formed and whether
 * a file may be read are for `check-resource.ts`.
 */
import type { Located } from './diagnostics.js';
import {
  arg,
  argAt,
  childrenNamed,
  prop,
  propAt,
  type NodeKind,
  type ReadContext,
  type ReadNode,
} from './kdl-reader.js';
import { locatedString, once, SCOPE, TEXT } from './common-kinds.js';
import type { ResourceSpec } from './spec-types.js';

const STRING = { type: 'string' } as const;

/**
 * A text that may be written as a property or as a child (`describe="..."` or
 * `describe "..."`); both at once is a duplicate.
 */
export function propOrChild(
  n: ReadNode,
  name: string,
  ctx: ReadContext,
): Located<string> | undefined {
  const fromProp = n.props.get(name) as Located<string> | undefined;
  const child = n.children.find((c) => c.name === name);
  if (fromProp && child) {
    ctx.diag.error(
      'SPEC_DUPLICATE',
      child.at,
      ctx.subject,
      `\`${name}\` is given twice (as ${name}= on line ${fromProp.at.line} and as a child)`,
    );
  }
  if (fromProp) return fromProp;
  if (!child) return undefined;
  const v = child.value as string | Located<string>;
  return typeof v === 'string' ? { value: v, at: child.at } : v;
}

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
  inner: (n) => {
    const uri = arg<string>(n, 0);
    return uri === undefined ? undefined : [`resource ${uri}`];
  },
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
