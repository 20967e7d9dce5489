/**
 * Column values as JSON (SQL grants, "Result"): bigint and numeric as numbers only when
 * they fit exactly, else strings; timestamps as ISO 8601; json/jsonb parsed; bytea as
 * base64. Parsers are installed once per pool, not per row.
 */
import pg from 'pg';
import { stringifyJson, type NumberTexts } from '../../../json/number-text.js';

const OID = {
  BYTEA: 17,
  INT8: 20,
  NUMERIC: 1700,
  DATE: 1082,
  TIMESTAMP: 1114,
  TIMESTAMPTZ: 1184,
} as const;

/** "12.50" → 12.5 (same value); "0.1000000000000000055" → kept as a string. */
export function exactNumber(text: string): number | string {
  const n = Number(text);
  if (!Number.isFinite(n)) return text;
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) return text;
  return canonicalDecimal(String(n)) === canonicalDecimal(text) ? n : text;
}

function canonicalDecimal(s: string): string {
  let t = s.trim().toLowerCase();
  if (t.includes('e')) t = expandExponent(t);
  const neg = t.startsWith('-');
  if (neg || t.startsWith('+')) t = t.slice(1);
  let [int = '0', frac = ''] = t.split('.');
  int = int.replace(/^0+(?=\d)/, '');
  frac = frac.replace(/0+$/, '');
  const body = frac ? `${int}.${frac}` : int;
  return neg && body !== '0' ? `-${body}` : body;
}

function expandExponent(t: string): string {
  const [mant = '0', expText = '0'] = t.split('e');
  const exp = Number(expText);
  const neg = mant.startsWith('-');
  const digits = mant.replace(/^[-+]/, '');
  const [i = '0', f = ''] = digits.split('.');
  const all = i + f;
  const point = i.length + exp;
  const out =
    point <= 0
      ? `0.${'0'.repeat(-point)}${all}`
      : point >= all.length
        ? all + '0'.repeat(point - all.length)
        : `${all.slice(0, point)}.${all.slice(point)}`;
  return neg ? `-${out}` : out;
}

/** `2024-05-01 10:00:00` (no zone) → `2024-05-01T10:00:00`; with a zone → UTC ISO. */
function timestamp(text: string): string {
  if (text === 'infinity' || text === '-infinity') return text;
  return text.replace(' ', 'T');
}

function timestamptz(text: string): string {
  if (text === 'infinity' || text === '-infinity') return text;
  const d = new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
  return Number.isNaN(d.getTime()) ? text : d.toISOString();
}

function bytea(text: string): string {
  return text.startsWith('\\x')
    ? Buffer.from(text.slice(2), 'hex').toString('base64')
    : Buffer.from(text, 'latin1').toString('base64');
}

/** Array types whose elements need the conversions above: array oid → element oid. */
const ARRAYS: Record<number, number> = {
  1001: OID.BYTEA,
  1016: OID.INT8,
  1231: OID.NUMERIC,
  1182: OID.DATE,
  1115: OID.TIMESTAMP,
  1185: OID.TIMESTAMPTZ,
};
/** text[]'s parser splits any array literal into (nested) strings, with nulls kept. */
const TEXT_ARRAY = 1009;

function mapDeep(v: unknown, f: (text: string) => unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => mapDeep(x, f));
  return typeof v === 'string' ? f(v) : v;
}

const CUSTOM: Record<number, (text: string) => unknown> = {
  [OID.INT8]: exactNumber,
  [OID.NUMERIC]: exactNumber,
  [OID.DATE]: (t) => t,
  [OID.TIMESTAMP]: timestamp,
  [OID.TIMESTAMPTZ]: timestamptz,
  [OID.BYTEA]: bytea,
};

const splitArray = pg.types.getTypeParser(
  TEXT_ARRAY as Parameters<typeof pg.types.getTypeParser>[0],
  'text',
) as (text: string) => unknown;
for (const [arrayOid, elementOid] of Object.entries(ARRAYS)) {
  const element = CUSTOM[elementOid]!;
  CUSTOM[Number(arrayOid)] = (text) => mapDeep(splitArray(text), element);
}

export const jsonTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    const custom = CUSTOM[oid];
    if (custom && (format === undefined || format === 'text')) return custom;
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * A bound parameter: objects and raw JSON as JSON text (a raw number with the caller's
 * digits, which jsonb keeps: `texts` are those kept inside `v`), scalars and scalar
 * arrays as they are.
 */
export function bindValue(type: string, v: unknown, texts: NumberTexts | undefined): unknown {
  if (v === undefined || v === null) return null;
  if (type === 'object' || type === 'object[]' || type === 'raw') return stringifyJson(v, texts);
  return v;
}
