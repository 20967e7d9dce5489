/**
 * The nodes the importer means to write, as data, so that what it writes can be
 * compared with what a KDL reader makes of it (read-back.ts). Comments and blank lines
 * are items too: they are written, and a reader must not see them.
 */
import { commentText, kdlString } from './kdl-text.js';

/** A string the writer may leave bare when it is an identifier (`list`, `repo-issues`). */
export interface Ident {
  readonly ident: string;
}
export type KdlValue = string | number | boolean | Ident;
/** An argument (key null) or a property, in the order written. */
export type KdlEntry = readonly [key: string | null, value: KdlValue];

export interface KdlNode {
  readonly name: string;
  readonly entries: readonly KdlEntry[];
  readonly children: readonly KdlItem[];
}
export type KdlItem = KdlNode | { readonly comment: string } | { readonly blank: true };

const INDENT = '    ';
const RESERVED = new Set(['true', 'false', 'null', 'inf', 'nan']);

export function node(
  name: string,
  entries: readonly KdlEntry[] = [],
  children: readonly KdlItem[] = [],
): KdlNode {
  return { name, entries, children };
}

export function comment(text: string): KdlItem {
  return { comment: text };
}

export const BLANK: KdlItem = { blank: true };

/** An identifier-like value bare, anything else quoted. */
function ident(text: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(text) && !RESERVED.has(text) ? text : kdlString(text);
}

function valueText(v: KdlValue): string {
  if (typeof v === 'object') return ident(v.ident);
  if (typeof v === 'string') return kdlString(v);
  if (typeof v === 'boolean') return v ? '#true' : '#false';
  return String(v);
}

function lines(item: KdlItem, depth: number, out: string[]): void {
  const pad = INDENT.repeat(depth);
  if ('blank' in item) {
    out.push('');
    return;
  }
  if ('comment' in item) {
    out.push(`${pad}// ${commentText(item.comment)}`);
    return;
  }
  const head = [
    ident(item.name),
    ...item.entries.map(([k, v]) => (k === null ? valueText(v) : `${ident(k)}=${valueText(v)}`)),
  ].join(' ');
  if (item.children.length === 0) {
    out.push(`${pad}${head}`);
    return;
  }
  out.push(`${pad}${head} {`);
  for (const c of item.children) lines(c, depth + 1, out);
  out.push(`${pad}}`);
}

/** The items as `.mcp.kdl` text: four-space indentation, one node or comment a line. */
export function writeKdl(items: readonly KdlItem[]): string {
  const out: string[] = [];
  for (const item of items) lines(item, 0, out);
  return `${out.join('\n')}\n`;
}
