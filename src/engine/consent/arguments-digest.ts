/**
 * A digest of a call's validated arguments, so a sealed request state and a parked
 * approval can name the exact call they consent to without carrying the arguments.
 *
 * It is taken over the argument text that goes upstream, numbers as the caller wrote
 * them (number-text.ts): a `raw` value sends `1e400`, `-0` or `1.00000000000000000001`
 * verbatim, though they parse to the doubles of `null`, `0` and `1`. A digest of the
 * doubles let an approval of `{"v":null}` run `{"v":1e400}`. Every kept text goes in,
 * even one a backend sends by value (a typed `1.50` as `1.5`): that only makes the
 * repeat of a call match when it is written the same way, never an unapproved text run.
 *
 * The same arguments give the same digest whatever order their keys came in: the retry
 * of a confirmed call is a new request, and a client may serialise its object differently.
 */
import { createHash } from 'node:crypto';
import type { NumberTexts } from '../../json/number-text.js';

/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, a number whose text
 * `texts` keeps written as that text, otherwise what JSON.stringify writes (undefined
 * members dropped, undefined array items and non-finite numbers as null). A bigint is
 * written as the integer it is, as big numbers arrive.
 */
export function canonicalJson(value: unknown, texts?: NumberTexts): string {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') {
    // JSON.stringify answers undefined for undefined, functions and symbols.
    return JSON.stringify(value) ?? 'null';
  }
  const json = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof json === 'function') return canonicalJson(json.call(value));
  // A member's text applies only while it is still the double made of it (textAt).
  const member = (key: string | number, v: unknown): string =>
    (typeof v === 'number' && texts?.textAt(key, v)) || canonicalJson(v, texts?.at(key));
  if (Array.isArray(value)) return `[${value.map((item, i) => member(i, item)).join(',')}]`;
  const members: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    members.push(`${JSON.stringify(key)}:${member(key, v)}`);
  }
  return `{${members.join(',')}}`;
}

/** SHA-256 of the canonical JSON of `args` (with the caller's number texts), 64 hex digits. */
export function argumentsDigest(args: unknown, texts?: NumberTexts): string {
  return createHash('sha256').update(canonicalJson(args, texts), 'utf8').digest('hex');
}
