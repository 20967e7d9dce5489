/**
 * coverage.items (spec-language.md, "The result envelope"): every array of the complete
 * result, named by a path in which indexes are `[*]`, so arrays whose paths differ only
 * in indexes are one entry. A path without `[*]` names exactly one array (`length`); a
 * path with it names a group (`count`, `min`, `max`, `total`). One walk over the result.
 *
 * The list is bounded whatever the data's shape: at most ITEMS_CAP entries (paths in the
 * order a depth-first walk first meets them, so `$` comes first), and at most a quarter
 * of max-bytes of JSON, counted as if every entry also carried `kept`. Entries past
 * either bound are left out; the arrays they name are counted in `items_omitted`.
 */
import { PathNode } from './json-path.js';

/** One array: the path holds no `[*]`. */
export interface SingleArray {
  readonly path: string;
  length: number;
  kept?: number;
}

/** Every array at a path with `[*]`: how many, their shortest, longest and summed lengths. */
export interface ArrayGroup {
  readonly path: string;
  count: number;
  min: number;
  max: number;
  total: number;
  kept?: number;
}

export type ArrayItem = SingleArray | ArrayGroup;

/** Distinct array paths listed in coverage.items at most. */
export const ITEMS_CAP = 50;

export function isGroup(item: ArrayItem): item is ArrayGroup {
  return 'count' in item;
}

/** Elements of the complete arrays an entry names: a single array's length, a group's total. */
export function elementsOf(item: ArrayItem): number {
  return isGroup(item) ? item.total : item.length;
}

export interface Census {
  readonly items: ArrayItem[];
  /** Arrays of the result that no listed entry names. */
  readonly omitted: number;
  /** The paths met, for a cut of the same result to reuse. */
  readonly root: PathNode;
}

/**
 * Lists the arrays of `value`. `itemsBytes` bounds the list's JSON; `rows` (sql) is the
 * statement's row count when max-rows held some back: the top array's full length.
 */
export function takeCensus(value: unknown, itemsBytes: number, rows?: number): Census {
  const byPath = new Map<PathNode, ArrayItem>();
  let omitted = 0;
  const add = (at: PathNode, length: number): void => {
    const seen = byPath.get(at);
    if (seen) {
      const g = seen as ArrayGroup;
      g.count += 1;
      if (length < g.min) g.min = length;
      if (length > g.max) g.max = length;
      g.total += length;
    } else if (byPath.size >= ITEMS_CAP) omitted += 1;
    else if (at.path.includes('[*]'))
      byPath.set(at, { path: at.path, count: 1, min: length, max: length, total: length });
    else byPath.set(at, { path: at.path, length });
  };
  const walk = (v: unknown, at: PathNode): void => {
    if (Array.isArray(v)) {
      add(at, v.length);
      const each = at.each();
      for (const el of v) if (el !== null && typeof el === 'object') walk(el, each);
    } else {
      for (const k in v as object) {
        const m = (v as Record<string, unknown>)[k];
        if (m !== null && typeof m === 'object' && Object.hasOwn(v as object, k))
          walk(m, at.child(k));
      }
    }
  };
  const root = PathNode.root();
  if (value !== null && typeof value === 'object') walk(value, root);
  const items = [...byPath.values()];
  const top = items[0];
  if (rows !== undefined && top?.path === '$' && !isGroup(top) && rows > top.length) {
    top.kept = top.length;
    top.length = rows;
  }
  // The byte bound: a prefix of the list whose JSON, with a `kept` as long as the
  // entry's own length on every entry, stays within itemsBytes. A list that cannot
  // reach it even at its entries' longest spelling is kept whole without being spelled.
  if (mostBytes(items) <= itemsBytes) return { items, omitted, root };
  let used = 2; // []
  let listed = 0;
  for (const item of items) {
    const size = byteLength(JSON.stringify(item)) + keptBound(item) + (listed > 0 ? 1 : 0);
    if (used + size > itemsBytes) break;
    used += size;
    listed += 1;
  }
  for (const item of items.slice(listed)) omitted += isGroup(item) ? item.count : 1;
  return { items: items.slice(0, listed), omitted, root };
}

/**
 * At least as many bytes as the list's JSON with a `kept` on every entry: a path's
 * UTF-16 unit is at most 6 bytes of JSON (`\u001f`), and the rest of an entry — a
 * group's four numbers and a `kept`, each at most 24 characters, their names, the
 * path's quotes and a comma — comes to under 200.
 */
function mostBytes(items: readonly ArrayItem[]): number {
  let n = 2;
  for (const item of items) n += 200 + 6 * item.path.length;
  return n;
}

/** Bytes a `kept` member could add to an entry (none when it already has one). */
export function keptBound(item: ArrayItem): number {
  return item.kept === undefined ? `,"kept":${elementsOf(item)}`.length : 0;
}

export function byteLength(json: string): number {
  return Buffer.byteLength(json, 'utf8');
}
