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
import { holdsNumberText, numberTextAt, stringifyJson } from '../../number-text.js';

type Obj = Record<string, unknown>;

/** An own member only: a caller's object never lends `toString` from its prototype. */
function own(o: Obj, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

function obj(): Obj {
  return Object.create(null) as Obj;
}

function reshape(f: BodyFieldDescriptor, v: unknown): unknown {
  // A typed array is sent by value (1.50 as 1.5); only raw keeps the caller's digits.
  if (f.type !== 'raw' && Array.isArray(v) && !f.fields && holdsNumberText(v)) return [...v];
  if (!f.fields || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v))
    return f.type === 'object[]' ? v.map((item) => reshapeObject(f.fields!, item)) : v;
  return reshapeObject(f.fields, v);
}

function reshapeObject(fields: readonly BodyFieldDescriptor[], v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  const src = v as Obj;
  const out = obj();
  for (const c of fields) {
    const v = own(src, c.name);
    if (v !== undefined) out[c.upstream] = reshape(c, v);
  }
  return out;
}

function setPath(root: Obj, path: readonly string[], value: unknown): void {
  let node = root;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) node[key] = obj();
    node = node[key] as Obj;
  }
  node[path[path.length - 1]!] = value;
}

export interface BodyPlan {
  readonly encoding: 'json' | 'form';
  readonly fields: readonly { readonly arg: string; readonly field: BodyFieldDescriptor }[];
  readonly projections: readonly ArgumentDescriptor[];
  readonly setBody: HttpBackend['setBody'];
}

export function planBody(
  backend: HttpBackend,
  args: readonly ArgumentDescriptor[],
): BodyPlan | undefined {
  if (!backend.body) return undefined;
  const byName = new Map(backend.body.fields.map((f) => [f.name, f]));
  return {
    encoding: backend.body.encoding,
    fields: args
      .filter((a) => a.in === 'body' && byName.has(a.name))
      .map((a) => ({ arg: a.name, field: byName.get(a.name)! })),
    projections: args.filter((a) => a.in === 'projection'),
    setBody: backend.setBody,
  };
}

/** The body to send, or why it is not sent (an expected failure, so a value). */
export type BuiltBody =
  { readonly contentType: string; readonly payload: string } | { readonly refused: string };

export function buildBody(plan: BodyPlan, args: Obj): BuiltBody {
  const out = obj();
  for (const { arg, field } of plan.fields) {
    const v = own(args, arg);
    if (v !== undefined) out[field.upstream] = reshape(field, v);
  }
  for (const p of plan.projections) {
    const v = own(args, p.name);
    if (v !== undefined) setPath(out, p.bodyPath!, v);
  }
  for (const s of plan.setBody) setPath(out, s.path, s.value);
  // `raw` values keep their identity through reshape, so their numbers' texts are found.
  const exact = holdsNumberText(args);
  if (plan.encoding === 'json')
    return { contentType: 'application/json', payload: stringifyJson(out, exact) };
  const form = new URLSearchParams();
  const refused = flattenForm(out, '', form, { in: 0, out: 0 }, exact ? undefined : null);
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
  name: string,
  form: URLSearchParams,
  size: { in: number; out: number },
  /** The caller's text of this number; null when no number text is kept at all. */
  written: string | undefined | null,
): string | undefined {
  const exact = written !== null;
  if (Array.isArray(value)) {
    const scalars = value.every((v) => v === null || typeof v !== 'object');
    size.in += value.length + 2;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const refused = flattenForm(
        v,
        scalars ? `${name}[]` : `${name}[${i}]`,
        form,
        size,
        exact ? numberTextAt(value, i, v) : null,
      );
      if (refused !== undefined) return refused;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      size.in += k.length + 4;
      const refused = flattenForm(
        v,
        name ? `${name}[${k}]` : k,
        form,
        size,
        exact ? numberTextAt(value, k, v) : null,
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
