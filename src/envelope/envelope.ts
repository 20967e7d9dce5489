/**
 * The coverage-first envelope `{coverage, result}` (spec-language.md, "The result
 * envelope"). Built once per call; the JSON text is assembled with coverage first so
 * a consumer that cuts a long result keeps the front, and the result is serialized once.
 */
import { byteLength, Truncator, type ArrayItem } from './truncate.js';

export interface Coverage {
  readonly truncated: boolean;
  readonly bytes: number;
  readonly over_budget: boolean;
  readonly items: readonly ArrayItem[];
  readonly items_omitted?: number;
  /** sql: rows the statement produced before max-rows. */
  readonly rows?: number;
}

export interface Envelope {
  readonly coverage: Coverage;
  readonly result: unknown;
}

export interface BuiltEnvelope {
  readonly envelope: Envelope;
  /** The envelope as JSON, coverage first. */
  readonly json: string;
}

export interface EnvelopeLimits {
  readonly maxBytes: number;
  readonly budgetBytes: number;
}

/** Arrays listed in coverage.items at most; the rest are counted in items_omitted. */
export const ITEMS_CAP = 50;

export interface EnvelopeInput {
  readonly result: unknown;
  /** The result's JSON when the caller already has it (saves one serialization). */
  readonly resultJson?: string;
  /** Set when the result was already cut before it got here (sql max-rows, a text read cap). */
  readonly alreadyTruncated?: boolean;
  readonly rows?: number;
  /** Size of the complete result when it is known to be larger than what we hold. */
  readonly completeBytes?: number;
}

export function buildEnvelope(input: EnvelopeInput, limits: EnvelopeLimits): BuiltEnvelope {
  const full = input.resultJson ?? JSON.stringify(input.result ?? null);
  const bytes = input.completeBytes ?? byteLength(full);
  const t = new Truncator(ITEMS_CAP);
  let result = input.result ?? null;
  let resultJson = full;
  let truncated = input.alreadyTruncated ?? false;
  if (byteLength(full) > limits.maxBytes) {
    result = t.fit(result, limits.maxBytes, '$', full) ?? null;
    resultJson = JSON.stringify(result);
    truncated = true;
  } else {
    t.walk(result, '$');
  }
  // Rows dropped by max-rows before the result got here: the top-level array's full
  // length is the statement's row count.
  const top = t.items[0];
  if (input.rows !== undefined && top?.path === '$' && input.rows > top.length) {
    top.kept = top.kept ?? top.length;
    top.length = input.rows;
  }
  const base = {
    truncated,
    bytes,
    items: t.items,
    ...(t.omitted > 0 && { items_omitted: t.omitted }),
    ...(input.rows !== undefined && { rows: input.rows }),
  };
  // over_budget depends on the envelope's own size, which includes the flag: measure
  // with the longer spelling (false) so the answer is never an underestimate.
  const probe = `{"coverage":${JSON.stringify({ ...base, over_budget: false })},"result":${resultJson}}`;
  const coverage: Coverage = {
    truncated: base.truncated,
    bytes: base.bytes,
    over_budget: byteLength(probe) > limits.budgetBytes,
    items: base.items,
    ...(base.items_omitted !== undefined && { items_omitted: base.items_omitted }),
    ...(base.rows !== undefined && { rows: base.rows }),
  };
  const json = `{"coverage":${JSON.stringify(coverage)},"result":${resultJson}}`;
  return { envelope: { coverage, result }, json };
}
