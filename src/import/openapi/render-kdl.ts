/**
 * DraftSpec → `.mcp.kdl` nodes, laid out as the examples in specs/ are: `describe`
 * first, one field per line with its properties in a fixed order, `enum` as a child.
 * The same draft always gives the same bytes.
 */
import type {
  DraftAuth,
  DraftBlock,
  DraftField,
  DraftGrant,
  DraftSpec,
  DraftToolset,
  Scalar,
} from './draft-types.js';
import { BLANK, comment, node, writeKdl, type KdlEntry, type KdlItem } from './kdl-nodes.js';
import { wellFormed } from './kdl-text.js';

export { kdlString } from './kdl-text.js';

/** A string value as a reader will see it (KDL cannot hold a lone surrogate). */
function text(v: string): string {
  return wellFormed(v);
}

function scalar(v: Scalar): Scalar {
  return typeof v === 'string' ? text(v) : v;
}

/** A field's properties in the order written: the KDL name, and the draft member it writes. */
const FIELD_PROPS = [
  ['default', 'default'],
  ['min', 'min'],
  ['max', 'max'],
  ['min-length', 'minLength'],
  ['max-length', 'maxLength'],
  ['pattern', 'pattern'],
  ['format', 'format'],
  ['min-items', 'minItems'],
  ['max-items', 'maxItems'],
  ['as', 'as'],
  ['kind', 'kind'],
  ['describe', 'describe'],
] as const satisfies readonly (readonly [string, keyof DraftField])[];

export function fieldNode(f: DraftField): KdlItem[] {
  const props: KdlEntry[] = f.required ? [['required', true]] : [];
  for (const [key, member] of FIELD_PROPS) {
    const v: Scalar | undefined = f[member];
    if (v !== undefined) props.push([key, scalar(v)]);
  }
  const children: KdlItem[] = [];
  if (f.enum)
    children.push(
      node(
        'enum',
        f.enum.map((v) => [null, scalar(v)]),
      ),
    );
  for (const c of f.fields ?? []) children.push(...fieldNode(c));
  for (const n of f.notes ?? []) children.push(comment(n));
  return [...(f.lead ?? []).map(comment), node(f.name, [[null, text(f.type)], ...props], children)];
}

function block(name: string, entries: KdlEntry[], b: DraftBlock): KdlItem[] {
  if (b.fields.length === 0 && b.notes.length === 0) return [];
  return [node(name, entries, [...b.fields.flatMap(fieldNode), ...b.notes.map(comment)])];
}

function grantItems(g: DraftGrant, upstream: string | undefined): KdlItem[] {
  const children: KdlItem[] = [node('describe', [[null, text(g.describe)]])];
  children.push(...g.notes.map(comment));
  if (g.method) children.push(node('method', [[null, g.method]]));
  if (upstream !== undefined) children.push(node('upstream', [[null, text(upstream)]]));
  children.push(
    node(
      'path',
      [[null, text(g.path)]],
      [...g.pathParams.flatMap(fieldNode), ...g.pathNotes.map(comment)],
    ),
  );
  children.push(...block('query', [], g.query));
  if (g.body)
    children.push(
      ...block('body', g.body.encoding === 'form' ? [['encoding', 'form']] : [], g.body),
    );
  if (g.set && g.set.query.length + g.set.header.length > 0)
    children.push(
      node(
        'set',
        [],
        [
          ...g.set.query.map(([k, v]) =>
            node('query', [
              [null, text(k)],
              [null, text(v)],
            ]),
          ),
          ...g.set.header.map(([k, v]) =>
            node('header', [
              [null, text(k)],
              [null, text(v)],
            ]),
          ),
        ],
      ),
    );
  return [
    comment(g.source),
    node(
      'can',
      [
        [null, { ident: text(g.verb) }],
        [null, { ident: text(g.resource) }],
      ],
      children,
    ),
  ];
}

function authNode(a: DraftAuth): KdlItem {
  const kind: KdlEntry = [null, { ident: a.kind }];
  switch (a.kind) {
    case 'bearer':
      return node('auth', [kind, ['env', text(a.env)]]);
    case 'basic':
      return node('auth', [
        kind,
        ['username-env', text(a.usernameEnv)],
        ['password-env', text(a.passwordEnv)],
      ]);
    case 'header':
      return node('auth', [kind, [null, text(a.header)], ['env', text(a.env)]]);
    case 'query':
      return node('auth', [kind, [null, text(a.param)], ['env', text(a.env)]]);
  }
}

/**
 * `toolset "<name>" { describe; tools ... }`, one `tools` line per member (a toolset may
 * give `tools` more than once): deleting a line takes a tool out. A comment names the
 * tags it stands for when its name is not simply the tag.
 */
function toolsetItems(t: DraftToolset): KdlItem[] {
  const children: KdlItem[] = [
    ...(t.describe !== undefined ? [node('describe', [[null, text(t.describe)]])] : []),
    ...t.tools.map((tool) => node('tools', [[null, text(tool)]])),
  ];
  const from =
    t.tags.length === 1 && t.tags[0] === t.name
      ? []
      : [
          comment(
            `from the ${t.tags.length === 1 ? 'tag' : 'tags'} ${t.tags.map((g) => JSON.stringify(g)).join(', ')}`,
          ),
        ];
  return [...from, node('toolset', [[null, text(t.name)]], children)];
}

/**
 * Where the grants are sent: the top-level `base-url` and `auth` (the default upstream),
 * or with `--upstream` one `upstream "<name>" base-url=… { auth }` that every grant names.
 */
function upstreamItems(d: DraftSpec): KdlItem[] {
  const auth = [...d.authNotes.map(comment), ...(d.auth ? [authNode(d.auth)] : [])];
  if (d.upstream === undefined)
    return [...d.baseUrlNotes.map(comment), node('base-url', [[null, text(d.baseUrl)]]), ...auth];
  return [
    ...d.baseUrlNotes.map(comment),
    node(
      'upstream',
      [
        [null, text(d.upstream)],
        ['base-url', text(d.baseUrl)],
      ],
      auth,
    ),
  ];
}

/** The draft's nodes, comments and blank lines, in the order they are written. */
export function draftItems(d: DraftSpec): KdlItem[] {
  const out: KdlItem[] = [...d.preamble.map(comment), BLANK];
  out.push(
    node(
      'wrap',
      [
        [null, text(d.name)],
        ['version', text(d.version)],
      ],
      [node('title', [[null, text(d.title)]]), node('describe', [[null, text(d.describe)]])],
    ),
    BLANK,
  );
  out.push(...upstreamItems(d));
  for (const e of d.entries) {
    out.push(BLANK);
    if (e.kind === 'grant') out.push(...grantItems(e.grant, d.upstream));
    else out.push(comment(e.skipped.source), comment(`skipped: ${e.skipped.reason}`));
  }
  if (d.toolsets && d.toolsets.length > 0) {
    out.push(
      BLANK,
      comment(
        'One toolset per tag (--toolsets=tag), each served at /mcp/<name>: its tools are the grants',
      ),
      comment("of the tag's operations, listed in the order of the grants above."),
    );
    for (const t of d.toolsets) out.push(BLANK, ...toolsetItems(t));
  }
  return out;
}

export function renderKdl(d: DraftSpec): string {
  return writeKdl(draftItems(d));
}
