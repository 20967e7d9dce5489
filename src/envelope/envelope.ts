/**
 * The coverage-first envelope `{coverage, result}` (spec-language.md, "The result
 * envelope"). Built once per call; the JSON text is assembled with coverage first so
 * a consumer that cuts a long result keeps the front, and the result is serialized once.
 *
 * `max-bytes` bounds the whole envelope, coverage included: the REST body, and on MCP
 * the `content[0].text` whose parsed value is `structuredContent`. One pass: the
 * coverage is known before any cut except for its `kept` counts and its flags, so it is
 * measured with the longest spelling those can take, the result is cut once to what
 * is left, and the real coverage is never longer than the one measured.
 */
import {
  byteLength,
  elementsOf,
  ITEMS_CAP,
  keptBound,
  takeCensus,
  type ArrayItem,
} from './array-census.js';
import { Truncator, type Fitted } from './truncate.js';

export { ITEMS_CAP, type ArrayItem };

export interface Coverage {
  readonly truncated: boolean;
  readonly bytes: number;
  /** Grants with pick/omit: the size of what the upstream sent, before shaping. */
  readonly upstream_bytes?: number;
  readonly shaped?: true;
  /**
   * Grants with pick/omit: why the result is null although the upstream sent a body (it
   * was not JSON, or was cut at the read cap), so nothing unshaped reached the caller.
   */
  readonly withheld?: string;
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
  /**
   * `json` is these two and a closing brace: the coverage with `"result":`, and the
   * result's JSON. For an answer written as bytes from its parts without assembling the
   * whole string first (json/text-parts.ts, `envelopeParts`).
   */
  readonly jsonOpening: string;
  readonly resultJson: string;
  /**
   * The envelope cut to budget-bytes, as JSON: `json` itself while it is within them,
   * else a second envelope by the same rules (coverage first, `truncated`, `kept`) whose
   * JSON is at most budget-bytes when its coverage leaves room. For a copy meant for
   * clients with the smallest cap (the MCP text block); made on demand, from the value
   * already parsed, at a cost bounded by what it keeps.
   */
  readonly withinBudget: () => string;
}

export interface EnvelopeLimits {
  readonly maxBytes: number;
  readonly budgetBytes: number;
}

/**
 * The least `max-bytes` a spec may set: room for the coverage of any result (its fixed
 * members, at most a quarter of max-bytes of items) and some of the result.
 */
export const MIN_MAX_BYTES = 512;

export interface EnvelopeInput {
  readonly result: unknown;
  /** The result's JSON when the caller already has it (saves one serialization). */
  readonly resultJson?: string;
  /** Set when the result was already cut before it got here (sql max-rows, a text read cap). */
  readonly alreadyTruncated?: boolean;
  readonly rows?: number;
  /** Size of the complete result when it is known to be larger than what we hold. */
  readonly completeBytes?: number;
  /** HTTP: bytes of the body the upstream sent (before parsing). */
  readonly receivedBytes?: number;
  /** Set by pick/omit: the size of the result before shaping (coverage.upstream_bytes). */
  readonly upstreamBytes?: number;
  /** Set by the backend of a shaped grant that could not shape the body: the reason. */
  readonly withheld?: string;
}

/** `{"coverage":` + coverage + `,"result":` + result + `}`. */
const FRAME_BYTES = 12 + 10 + 1;

export function buildEnvelope(input: EnvelopeInput, limits: EnvelopeLimits): BuiltEnvelope {
  const full = input.resultJson ?? JSON.stringify(input.result ?? null);
  const fullBytes = byteLength(full);
  const bytes = input.completeBytes ?? fullBytes;
  const census = takeCensus(input.result, Math.floor(limits.maxBytes / 4), input.rows);
  const { items } = census;
  // The coverage JSON is assembled here, in the key order of `Coverage`, as
  // JSON.stringify would write it; every number is an integer.
  const shaped =
    input.upstreamBytes !== undefined
      ? `,"upstream_bytes":${input.upstreamBytes},"shaped":true`
      : '';
  const withheld =
    input.withheld !== undefined ? `,"withheld":${JSON.stringify(input.withheld)}` : '';
  const head = (truncated: boolean): string =>
    `{"truncated":${truncated},"bytes":${bytes}${shaped}${withheld},"over_budget":`;
  const tail = (list: string): string =>
    `,"items":${list}${census.omitted > 0 ? `,"items_omitted":${census.omitted}` : ''}` +
    `${input.rows !== undefined ? `,"rows":${input.rows}` : ''}}`;
  const listed = JSON.stringify(items);
  // over_budget depends on the envelope's own size, which includes the flag: measure
  // with the longer spelling (false) so the answer is never an underestimate.
  const frame = (h: string, t: string): number => FRAME_BYTES + byteLength(h) + 5 + byteLength(t);

  /** The result cut so that an envelope listing `list` is at most `limit` bytes; sets their `kept`. */
  const cutTo = (limit: number, list: ArrayItem[]): Fitted | undefined => {
    const h = head(true);
    // Every entry measured with a `kept` as long as its own length: a count of what
    // is kept is never longer than that.
    const listedBytes = byteLength(listed);
    const bound = listedBytes + list.reduce((n, it) => n + keptBound(it), 0);
    const room = limit - (frame(h, tail(listed)) - listedBytes + bound);
    const cut = new Truncator();
    // Called only when the whole result does not fit: the cut starts below the root.
    const kept = cut.cut(input.result ?? null, room, census.root);
    for (const item of list) {
      const n = cut.kept.get(item.path) ?? 0;
      if (n < elementsOf(item)) item.kept = n;
    }
    return kept;
  };

  let result = input.result ?? null;
  let resultJson = full;
  let truncated = input.alreadyTruncated ?? false;
  let h = head(truncated);
  let t = tail(listed);
  let censusKept: (number | undefined)[] | undefined;
  // The envelope's size, measured once while nothing is cut (each measure reads its
  // strings whole again).
  let size = frame(h, t) + fullBytes;
  if (size > limits.maxBytes) {
    truncated = true;
    h = head(true);
    censusKept = items.map((item) => item.kept);
    const kept = cutTo(limits.maxBytes, items);
    result = kept?.value ?? null;
    resultJson = kept?.json ?? 'null';
    t = tail(JSON.stringify(items));
    size = frame(h, t) + byteLength(resultJson);
  }
  const overBudget = size > limits.budgetBytes;
  const coverage: Coverage = {
    truncated,
    bytes,
    ...(input.upstreamBytes !== undefined && {
      upstream_bytes: input.upstreamBytes,
      shaped: true as const,
    }),
    ...(input.withheld !== undefined && { withheld: input.withheld }),
    over_budget: overBudget,
    items,
    ...(census.omitted > 0 && { items_omitted: census.omitted }),
    ...(input.rows !== undefined && { rows: input.rows }),
  };
  const opening = `{"coverage":${h}${overBudget}${t},"result":`;
  const json = `${opening}${resultJson}}`;
  const withinBudget = (): string => {
    if (!overBudget) return json;
    // The census's entries as they were before the max-bytes cut counted what it kept.
    const list = items.map((item, i) => ({
      ...item,
      kept: censusKept ? censusKept[i] : item.kept,
    }));
    const resultText = cutTo(limits.budgetBytes, list)?.json ?? 'null';
    const cutH = head(true);
    const cutT = tail(JSON.stringify(list));
    const over = frame(cutH, cutT) + byteLength(resultText) > limits.budgetBytes;
    return `{"coverage":${cutH}${over}${cutT},"result":${resultText}}`;
  };
  return {
    envelope: { coverage, result },
    json,
    jsonOpening: opening,
    resultJson,
    withinBudget,
  };
}

/** The envelope's JSON in the parts it is made of, for an answer written from them. */
export function envelopeParts(built: BuiltEnvelope): string[] {
  return [built.jsonOpening, built.resultJson, '}'];
}
