/**
 * The upstream request body: the object of declared fields (upstream/argument-object.ts),
 * serialized as JSON or as a form.
 */
import type { ArgumentDescriptor, HttpBackend } from '../../../compiler/descriptor.js';
import type { CallArguments } from '../../call-arguments.js';
import { NumberTexts, stringifyJson } from '../../../json/number-text.js';
import { buildObject, planObject, type ObjectPlan } from '../upstream/argument-object.js';

export interface BodyPlan extends ObjectPlan {
  readonly encoding: 'json' | 'form';
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
