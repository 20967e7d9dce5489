/**
 * A digest of a call's validated arguments, so a sealed request state can name the exact
 * call it confirms without carrying the arguments. The same arguments give the same
 * digest whatever order their keys came in: the retry of a confirmed call is a new
 * request, and a client may serialise its object differently the second time.
 */
import { createHash } from 'node:crypto';

/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, otherwise what
 * JSON.stringify writes (undefined members dropped, undefined array items and non-finite
 * numbers as null). A bigint is written as the integer it is, as big numbers arrive.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') {
    // JSON.stringify answers undefined for undefined, functions and symbols.
    return JSON.stringify(value) ?? 'null';
  }
  const json = (value as { toJSON?: () => unknown }).toJSON;
  if (typeof json === 'function') return canonicalJson(json.call(value));
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  const members: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol')
      continue;
    members.push(`${JSON.stringify(key)}:${canonicalJson(member)}`);
  }
  return `{${members.join(',')}}`;
}

/** SHA-256 of the canonical JSON of `args`, as 64 lowercase hex digits. */
export function argumentsDigest(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args), 'utf8').digest('hex');
}
