/**
 * McpDraftSpec → `.mcp.kdl` nodes: `wrap`, the `mcp-server` node, then each grant as
 * `can <verb> <resource> { describe; tool "<server>" "<tool>"; args { … } }`, fields
 * written as `import openapi` writes them (render-kdl.ts), so both drafts read alike.
 */
import { BLANK, comment, node, type KdlItem } from '../openapi/kdl-nodes.js';
import { wellFormed } from '../openapi/kdl-text.js';
import { fieldNode } from '../openapi/render-kdl.js';
import type { McpDraftGrant, McpDraftSpec } from './mcp-draft.js';

function serverNode(d: McpDraftSpec): KdlItem {
  const children: KdlItem[] = [];
  if (d.target.kind === 'command')
    children.push(
      node('command', [
        [null, wellFormed(d.target.program)],
        ...d.target.args.map((a): [null, string] => [null, wellFormed(a)]),
      ]),
    );
  if (d.protocol !== 'auto') children.push(node('protocol', [[null, d.protocol]]));
  return node(
    'mcp-server',
    [[null, d.name], ...(d.target.kind === 'url' ? [['url', d.target.url.href] as const] : [])],
    children,
  );
}

function grantItems(g: McpDraftGrant): KdlItem[] {
  const children: KdlItem[] = [
    node('describe', [[null, wellFormed(g.describe)]]),
    node('tool', [
      [null, g.server],
      [null, wellFormed(g.tool)],
    ]),
  ];
  if (g.args.fields.length + g.args.notes.length > 0)
    children.push(
      node('args', [], [...g.args.fields.flatMap(fieldNode), ...g.args.notes.map(comment)]),
    );
  return [
    comment(g.source),
    node(
      'can',
      [
        [null, { ident: g.verb }],
        [null, { ident: g.resource }],
      ],
      children,
    ),
  ];
}

/** The draft's nodes, comments and blank lines, in the order they are written. */
export function mcpDraftItems(d: McpDraftSpec): KdlItem[] {
  const out: KdlItem[] = [...d.preamble.map(comment), BLANK];
  out.push(
    node(
      'wrap',
      [
        [null, d.name],
        ['version', wellFormed(d.version)],
      ],
      [
        node('title', [[null, wellFormed(d.title)]]),
        node('describe', [[null, wellFormed(d.describe)]]),
      ],
    ),
    BLANK,
    ...d.serverNotes.map(comment),
    serverNode(d),
  );
  for (const e of d.entries) {
    out.push(BLANK);
    if (e.kind === 'grant') out.push(...grantItems(e.grant));
    else out.push(comment(e.skipped.source), comment(`skipped: ${e.skipped.reason}`));
  }
  return out;
}
