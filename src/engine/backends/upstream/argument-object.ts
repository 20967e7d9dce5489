/**
 * An upstream object built from declared fields only (security.md, "Query and body"):
 * the validated arguments re-shaped under their upstream names, `arg=` projections and
 * `set { body }` values placed at their paths. An HTTP body (http/body.ts) and an MCP
 * tool's `arguments` are built alike. Objects have no prototype, so no key can reach one.
 */
import type {
  ArgumentDescriptor,
  BodyFieldDescriptor,
  HttpBackend,
} from '../../../compiler/descriptor.js';
import type { CallArguments } from '../../call-arguments.js';
import { NumberTexts } from '../../../json/number-text.js';

type Obj = Record<string, unknown>;

/** A value placed in the body with the caller's number texts it brings (number-text.ts). */
interface Placed {
  readonly value: unknown;
  readonly texts: NumberTexts | undefined;
}

/** An own member only: a caller's object never lends `toString` from its prototype. */
function own(o: Obj, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

function obj(): Obj {
  return Object.create(null) as Obj;
}

/**
 * A value placed as it is brings its texts; a container built here brings those of the
 * members it places. `texts` are the ones kept inside `v`.
 */
function reshape(f: BodyFieldDescriptor, v: unknown, texts: NumberTexts | undefined): Placed {
  // A typed array is sent by value (1.50 as 1.5); only raw keeps the caller's digits.
  if (f.type !== 'raw' && Array.isArray(v) && !f.fields)
    return { value: v, texts: texts?.withoutOwn() };
  if (!f.fields || v === null || typeof v !== 'object') return { value: v, texts };
  if (Array.isArray(v)) {
    if (f.type !== 'object[]') return { value: v, texts };
    let below: Map<number, NumberTexts> | undefined;
    const value = v.map((item, i) => {
      const placed = reshapeObject(f.fields!, item, texts?.at(i));
      if (placed.texts) (below ??= new Map()).set(i, placed.texts);
      return placed.value;
    });
    return { value, texts: NumberTexts.of(undefined, below) };
  }
  return reshapeObject(f.fields, v, texts);
}

function reshapeObject(
  fields: readonly BodyFieldDescriptor[],
  v: unknown,
  texts: NumberTexts | undefined,
): Placed {
  if (v === null || typeof v !== 'object') return { value: v, texts: undefined };
  const src = v as Obj;
  const out = obj();
  let outTexts: NumberTexts | undefined;
  for (const c of fields) {
    const v = own(src, c.name);
    if (v === undefined) continue;
    const placed = reshape(c, v, texts?.at(c.name));
    out[c.upstream] = placed.value;
    outTexts = NumberTexts.withMember(outTexts, c.upstream, placed.texts);
  }
  return { value: out, texts: outTexts };
}

/** Places `value` at `path` under `node`; answers the texts of `node` afterwards. */
function setPath(
  node: Obj,
  texts: NumberTexts | undefined,
  path: readonly string[],
  value: Placed,
): NumberTexts | undefined {
  const key = path[0]!;
  if (path.length <= 1) {
    node[key] = value.value;
    return NumberTexts.withMember(texts, key, value.texts);
  }
  let next = node[key];
  let nextTexts = texts?.at(key);
  if (next === null || typeof next !== 'object' || Array.isArray(next)) {
    node[key] = next = obj();
    nextTexts = undefined;
  }
  return NumberTexts.withMember(texts, key, setPath(next as Obj, nextTexts, path.slice(1), value));
}

/** How a JSON object is built from declared fields: an HTTP body, an MCP `arguments`. */
export interface ObjectPlan {
  readonly fields: readonly { readonly arg: string; readonly field: BodyFieldDescriptor }[];
  readonly projections: readonly ArgumentDescriptor[];
  readonly setBody: HttpBackend['setBody'];
}

/**
 * The plan for an object of `fields`: the arguments that fill them (those `placed`
 * selects, by name), the `arg=` projections, and the pinned values set last.
 */
export function planObject(
  fields: readonly BodyFieldDescriptor[],
  args: readonly ArgumentDescriptor[],
  set: HttpBackend['setBody'],
  placed: (a: ArgumentDescriptor) => boolean,
): ObjectPlan {
  const byName = new Map(fields.map((f) => [f.name, f]));
  return {
    fields: args
      .filter((a) => placed(a) && byName.has(a.name))
      .map((a) => ({ arg: a.name, field: byName.get(a.name)! })),
    projections: args.filter((a) => a.in === 'projection'),
    setBody: set,
  };
}

/**
 * The object of declared fields only, with the caller's texts of the numbers it holds
 * (an object without a prototype, so no key can reach one).
 */
export function buildObject(
  plan: ObjectPlan,
  args: CallArguments,
): { readonly value: Record<string, unknown>; readonly texts: NumberTexts | undefined } {
  const out = obj();
  // The texts of the numbers the body holds: those of the caller's values placed in it.
  let texts: NumberTexts | undefined;
  for (const { arg, field } of plan.fields) {
    const v = own(args.value, arg);
    if (v === undefined) continue;
    const placed = reshape(field, v, args.texts?.at(arg));
    out[field.upstream] = placed.value;
    texts = NumberTexts.withMember(texts, field.upstream, placed.texts);
  }
  for (const p of plan.projections) {
    const v = own(args.value, p.name);
    if (v !== undefined)
      texts = setPath(out, texts, p.bodyPath!, { value: v, texts: args.texts?.at(p.name) });
  }
  for (const s of plan.setBody)
    texts = setPath(out, texts, s.path, { value: s.value, texts: undefined });
  return { value: out, texts };
}
