/**
 * A grant's `pick` / `omit`, applied to what the backend returned before the envelope
 * is built (spec-language.md, "Shaping results for agents"). Prepared once per grant
 * from the descriptor's paths; a call only walks the result along the tree.
 *
 * When the result is an array, the paths apply to each element. A parent that is
 * `null`, missing or not an object stays as it was; `[]` on a value that is not an
 * array leaves it untouched; kept fields keep the upstream's order.
 */
import type { ShapeDescriptor } from '../spec/descriptor.js';
import { shapeTreeOf, type ShapeNode } from '../spec/shape-path.js';
import { byteLength } from './array-census.js';
import type { EnvelopeInput } from './envelope.js';

export type Shaper = (input: EnvelopeInput) => EnvelopeInput;

export function prepareShaper(shape: ShapeDescriptor): Shaper {
  const root = shapeTreeOf(shape.paths);
  const fields = shape.mode === 'pick' ? pickFields : omitFields;
  const apply = (v: unknown): unknown => (isObject(v) ? fields(v, root) : v);
  return (input) => {
    // What the upstream sent: the body's bytes for HTTP, the rows as JSON for sql.
    const upstreamBytes =
      input.receivedBytes ??
      input.completeBytes ??
      byteLength(input.resultJson ?? JSON.stringify(input.result ?? null));
    const r = input.result;
    if (r === null || typeof r !== 'object') return { ...input, upstreamBytes };
    const { resultJson: _stale, ...rest } = input;
    return {
      ...rest,
      result: Array.isArray(r) ? r.map(apply) : apply(r),
      upstreamBytes,
    };
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function below(v: unknown, node: ShapeNode, fields: typeof pickFields): unknown {
  switch (node.kind) {
    case 'whole':
      return v;
    case 'fields':
      return isObject(v) ? fields(v, node.fields) : v;
    case 'each':
      return Array.isArray(v) ? v.map((el) => below(el, node.of, fields)) : v;
  }
}

function pickFields(
  obj: Record<string, unknown>,
  named: ReadonlyMap<string, ShapeNode>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const node = named.get(k);
    if (node) put(out, k, below(v, node, pickFields));
  }
  return out;
}

function omitFields(
  obj: Record<string, unknown>,
  named: ReadonlyMap<string, ShapeNode>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const node = named.get(k);
    if (!node) put(out, k, v);
    else if (node.kind !== 'whole') put(out, k, below(v, node, omitFields));
  }
  return out;
}

/** An own member even for a key such as `__proto__`, which plain assignment would not create. */
function put(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
