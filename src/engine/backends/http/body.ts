/**
 * The upstream request body, built from declared fields only (security.md, "Query and
 * body"): the validated arguments are re-shaped under their upstream names, `arg=`
 * projections and `set { body }` values are placed at their paths, and the result is
 * serialized as JSON or as a form. Objects have no prototype, so no key can reach one.
 */
import type {
  ArgumentDescriptor,
  BodyFieldDescriptor,
  HttpBackend,
} from '../../../compiler/descriptor.js';
import type { CallArguments } from '../../call-arguments.js';
import { NumberTexts, stringifyJson } from '../../number-text.js';

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

export interface BodyPlan extends ObjectPlan {
  readonly encoding: 'json' | 'form';
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

export function planBody(
  backend: HttpBackend,
  args: readonly ArgumentDescriptor[],
): BodyPlan | undefined {
  if (!backend.body) return undefined;
  return {
    encoding: backend.body.encoding,
    ...planObject(backend.body.fields, args, backend.setBody, (a) => a.in === 'body'),
  };
}

/** The body to send, or why it is not sent (an expected failure, so a value). */
export type BuiltBody =
  { readonly contentType: string; readonly payload: string } | { readonly refused: string };

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

export function buildBody(plan: BodyPlan, args: CallArguments): BuiltBody {
  const { value: out, texts } = buildObject(plan, args);
  if (plan.encoding === 'json')
    return { contentType: 'application/json', payload: stringifyJson(out, texts) };
  const form = new URLSearchParams();
  const refused = flattenForm(out, texts, undefined, '', form, { in: 0, out: 0 });
  if (refused !== undefined) return { refused };
  return { contentType: 'application/x-www-form-urlencoded', payload: form.toString() };
}

/**
 * Flattening repeats a leaf's whole key path in its name, so a small, deeply nested
 * object with long keys could become gigabytes of form data (a 250 KB request made
 * 600 MB): the names and values written may not outgrow the input by more than this.
 */
const FORM_GROWTH = 16;
const FORM_SLACK = 64 * 1024;
const FORM_MAX_BYTES = 8 * 1024 * 1024;

/** Why a form is refused when its encoding would be out of proportion to the arguments. */
const FORM_TOO_LARGE = `the body's form encoding would be ${FORM_GROWTH} times larger than its arguments (every key path is repeated per value); nest less deeply or use shorter keys`;

/**
 * Bracket notation as form APIs such as Stripe's read it: `a[b]=1`, scalar arrays as
 * repeated `a[]=x`, arrays of objects as `a[0][b]=1`; null as an empty value. Returns
 * why the form is refused, at the first value that makes it too large; else undefined.
 */
function flattenForm(
  value: unknown,
  /** The kept texts inside `value`, when it is a container. */
  texts: NumberTexts | undefined,
  /** The caller's text of `value`, when it is a number whose text is kept. */
  written: string | undefined,
  name: string,
  form: URLSearchParams,
  size: { in: number; out: number },
): string | undefined {
  if (Array.isArray(value)) {
    const scalars = value.every((v) => v === null || typeof v !== 'object');
    size.in += value.length + 2;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const refused = flattenForm(
        v,
        texts?.at(i),
        texts?.textAt(i, v),
        scalars ? `${name}[]` : `${name}[${i}]`,
        form,
        size,
      );
      if (refused !== undefined) return refused;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      size.in += k.length + 4;
      const refused = flattenForm(
        v,
        texts?.at(k),
        texts?.textAt(k, v),
        name ? `${name}[${k}]` : k,
        form,
        size,
      );
      if (refused !== undefined) return refused;
    }
  } else {
    const text = written ?? (value === null || value === undefined ? '' : String(value));
    size.in += text.length;
    size.out += name.length + text.length + 2;
    if (size.out > FORM_MAX_BYTES || size.out > FORM_SLACK + FORM_GROWTH * size.in)
      return FORM_TOO_LARGE;
    form.append(name, text);
  }
  return undefined;
}
