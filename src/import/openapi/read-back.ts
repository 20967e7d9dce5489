/**
 * The importer's last line of defence: it parses the text it is about to hand out with
 * the KDL reader the spec compiler uses, and compares the nodes it finds with the nodes
 * it meant to write. Document text that escaped a comment or a string (a line break the
 * writer did not know) shows up here as a node, an entry or a value nobody wrote.
 */
import { parse, type Document, type Node } from '@bgotink/kdl';
import type { KdlItem, KdlNode, KdlValue } from './kdl-nodes.js';

type Plain = { name: string; entries: [string | null, unknown][]; children: Plain[] };

function fromItems(items: readonly KdlItem[]): Plain[] {
  return items
    .filter((i): i is KdlNode => 'name' in i)
    .map((n) => ({
      name: n.name,
      entries: n.entries.map(([k, v]) => [k, plainValue(v)]),
      children: fromItems(n.children),
    }));
}

function plainValue(v: KdlValue): unknown {
  return typeof v === 'object' ? v.ident : v;
}

function fromDocument(doc: Document): Plain[] {
  return doc.nodes.map((n: Node) => ({
    name: n.getName(),
    entries: n.entries.map((e) => [e.getName(), e.getValue()]),
    children: n.children ? fromDocument(n.children) : [],
  }));
}

function shown(n: Plain | undefined): string {
  if (!n) return 'nothing';
  const text = [n.name, ...n.entries.map(([k, v]) => (k ? `${k}=` : '') + JSON.stringify(v))]
    .join(' ')
    .slice(0, 80);
  return `\`${text}\``;
}

/** Where two node lists first differ, as `at node 3 of can list_items: …`, or undefined. */
function firstDifference(want: Plain[], got: Plain[], where: string): string | undefined {
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    const w = want[i];
    const g = got[i];
    const at = `${where}node ${i + 1}`;
    if (!w || !g || w.name !== g.name || JSON.stringify(w.entries) !== JSON.stringify(g.entries))
      return `${at}: meant ${shown(w)}, read ${shown(g)}`;
    const inner = firstDifference(w.children, g.children, `${at} (${w.name}) > `);
    if (inner) return inner;
  }
  return undefined;
}

/**
 * Undefined when `text` parses to exactly the nodes of `items` (names, arguments and
 * properties in order, children), else a one-line account of the first difference.
 */
export function readBackProblem(items: readonly KdlItem[], text: string): string | undefined {
  let doc: Document;
  try {
    doc = parse(text, { as: 'document' });
  } catch (err) {
    const first = ((err as Error).message ?? String(err)).split('\n')[0];
    return `it is not valid KDL (${first})`;
  }
  return firstDifference(fromItems(items), fromDocument(doc), '');
}
