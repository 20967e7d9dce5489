/**
 * A grant's `pick` / `omit`, applied to what the backend returned before the envelope
 * is built (spec-language.md, "Shaping results (`pick` and `omit`)"). Prepared once per grant
 * from the descriptor's paths; a call only walks the result along the tree.
 *
 * Shaping fails closed: what leaves never holds a field the paths would have removed,
 * whatever shape the upstream sent. When the result is an array, the paths apply to
 * each element. Under `pick`, a value whose shape differs from its path (an array where
 * the path names an object's field, an object where it says `[]`) is dropped; under
 * `omit`, an array met where an object was named has the path applied to each element,
 * and an object met where `[]` was is shaped as that one element. `null`, a missing
 * parent and other scalars hold no field and stay as they were; kept fields keep the
 * upstream's order.
 */
import { shapeTreeOf, type ShapeDescriptor, type ShapeNode } from './shape-path.js';
import { byteLength } from './array-census.js';
import type { EnvelopeInput } from './envelope.js';

export type Shaper = (input: EnvelopeInput) => EnvelopeInput;

/** What `pick` returns for a value it drops (a member left out, an element removed). */
const DROP: unique symbol = Symbol('drop');

export function prepareShaper(shape: ShapeDescriptor): Shaper {
  const root: ShapeNode = { kind: 'fields', fields: shapeTreeOf(shape.paths) };
  const walk =
    shape.mode === 'pick'
      ? (r: object): unknown => (Array.isArray(r) ? pickEach(r, root) : picked(r, root))
      : (r: object): unknown => omitted(r, root);
  return (input) => {
    // What the upstream sent: the body's bytes for HTTP, the rows as JSON for sql.
    const upstreamBytes =
      input.receivedBytes ??
      input.completeBytes ??
      byteLength(input.resultJson ?? JSON.stringify(input.result ?? null));
    const r = input.result;
    // Object.assign rather than a spread followed by properties, which on Node 20 leaves
    // V8's fast object clone (microseconds a call; bench/RESULTS.md, issue 40).
    if (r === null || typeof r !== 'object') return Object.assign({}, input, { upstreamBytes });
    const out = walk(r);
    // The serialized result was of the unshaped value: stale now, so it goes.
    return Object.assign({}, input, {
      result: out === DROP ? null : out,
      resultJson: undefined,
      upstreamBytes,
    });
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function picked(v: unknown, node: ShapeNode): unknown {
  switch (node.kind) {
    case 'whole':
      return v;
    case 'fields':
      if (isObject(v)) return pickFields(v, node.fields);
      return Array.isArray(v) ? DROP : v;
    case 'each':
      if (Array.isArray(v)) return pickEach(v, node.of);
      return isObject(v) ? DROP : v;
  }
}

/** The elements that match `node`, shaped; the others are left out. */
function pickEach(arr: readonly unknown[], node: ShapeNode): unknown[] {
  const out: unknown[] = [];
  for (const el of arr) {
    const kept = picked(el, node);
    if (kept !== DROP) out.push(kept);
  }
  return out;
}

/**
 * The members of `obj` in their order, each as `member` gives it from its value and its
 * node of the tree (none for a member the paths do not name); DROP leaves it out.
 */
function eachMember(
  obj: Record<string, unknown>,
  named: ReadonlyMap<string, ShapeNode>,
  member: (v: unknown, node: ShapeNode | undefined) => unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const kept = member(v, named.get(k));
    if (kept !== DROP) put(out, k, kept);
  }
  return out;
}

function pickFields(
  obj: Record<string, unknown>,
  named: ReadonlyMap<string, ShapeNode>,
): Record<string, unknown> {
  return eachMember(obj, named, (v, node) => (node ? picked(v, node) : DROP));
}

function omitted(v: unknown, node: ShapeNode): unknown {
  switch (node.kind) {
    case 'whole':
      return v; // a whole field is left out by omitFields, never walked into
    case 'fields':
      if (isObject(v)) return omitFields(v, node.fields);
      return Array.isArray(v) ? v.map((el) => omitted(el, node)) : v;
    case 'each':
      if (Array.isArray(v)) return v.map((el) => omitted(el, node.of));
      return isObject(v) ? omitted(v, node.of) : v;
  }
}

function omitFields(
  obj: Record<string, unknown>,
  named: ReadonlyMap<string, ShapeNode>,
): Record<string, unknown> {
  return eachMember(obj, named, (v, node) =>
    !node ? v : node.kind === 'whole' ? DROP : omitted(v, node),
  );
}

/** An own member even for a key such as `__proto__`, which plain assignment would not create. */
function put(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
