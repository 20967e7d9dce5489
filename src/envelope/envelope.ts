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
  const fullBytes = byteLength(full);
  const bytes = input.completeBytes ?? fullBytes;
  const t = new Truncator(ITEMS_CAP);
  let result = input.result ?? null;
  let resultJson = full;
  let resultBytes = fullBytes;
  let truncated = input.alreadyTruncated ?? false;
  if (fullBytes > limits.maxBytes) {
    result = t.fit(result, limits.maxBytes, '$', full) ?? null;
    resultJson = JSON.stringify(result);
    resultBytes = byteLength(resultJson);
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
  // The coverage JSON is assembled here, in the key order of `Coverage`, as
  // JSON.stringify would write it; `bytes` and `rows` are integers.
  const omitted = t.omitted > 0 ? `,"items_omitted":${t.omitted}` : '';
  const rows = input.rows !== undefined ? `,"rows":${JSON.stringify(input.rows)}` : '';
  const head = `{"truncated":${truncated},"bytes":${JSON.stringify(bytes)},"over_budget":`;
  const tail = `,"items":${JSON.stringify(t.items)}${omitted}${rows}}`;
  // over_budget depends on the envelope's own size, which includes the flag: measure
  // with the longer spelling (false) so the answer is never an underestimate. The
  // envelope is `{"coverage":` (12 bytes) + coverage + `,"result":` (10) + result + `}`.
  const overBudget =
    12 + byteLength(head) + 5 + byteLength(tail) + 10 + resultBytes + 1 > limits.budgetBytes;
  const coverage: Coverage = {
    truncated,
    bytes,
    over_budget: overBudget,
    items: t.items,
    ...(t.omitted > 0 && { items_omitted: t.omitted }),
    ...(input.rows !== undefined && { rows: input.rows }),
  };
  const json = `{"coverage":${head}${overBudget}${tail},"result":${resultJson}}`;
  return { envelope: { coverage, result }, json };
}
