import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildEnvelope,
  ITEMS_CAP,
  MIN_MAX_BYTES,
  type ArrayItem,
  type Coverage,
} from '../../src/envelope/envelope.js';
import { shortenString } from '../../src/envelope/truncate.js';

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * Every value a coverage path (`$`, `.name`, `[*]`, `['any key']` with JSON escapes and
 * `\'`) reaches in a value: `[*]` steps into every element of an array.
 */
function resolveAll(root: unknown, path: string): unknown[] {
  if (!path.startsWith('$')) throw new Error(`path ${path} does not start at $`);
  let nodes = [root];
  let i = 1;
  const step = (key: string): void => {
    nodes = nodes.flatMap((node) =>
      node !== null && typeof node === 'object' && !Array.isArray(node) && Object.hasOwn(node, key)
        ? [(node as Record<string, unknown>)[key]]
        : [],
    );
  };
  while (i < path.length) {
    if (path[i] === '.') {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(path.slice(i + 1));
      if (!m) throw new Error(`bad name at ${i} in ${path}`);
      step(m[0]);
      i += 1 + m[0].length;
    } else if (path.startsWith("['", i)) {
      let j = i + 2;
      let inner = '';
      while (path[j] !== "'") {
        if (j >= path.length) throw new Error(`unterminated name in ${path}`);
        if (path[j] === '\\') {
          inner += path[j + 1] === "'" ? "'" : `\\${path[j + 1]}`;
          j += 2;
        } else {
          inner += path[j];
          j += 1;
        }
      }
      if (path[j + 1] !== ']') throw new Error(`expected ] at ${j + 1} in ${path}`);
      step(JSON.parse(`"${inner}"`) as string);
      i = j + 2;
    } else if (path.startsWith('[*]', i)) {
      nodes = nodes.flatMap((node) => (Array.isArray(node) ? (node as unknown[]) : []));
      i += 3;
    } else throw new Error(`unexpected ${path[i]} at ${i} in ${path}`);
  }
  return nodes;
}

/** The arrays a coverage path names in a value. */
function arraysAt(root: unknown, path: string): unknown[][] {
  return resolveAll(root, path).filter((v): v is unknown[] => Array.isArray(v));
}

/** What an entry says about the complete arrays at its path. */
function describedAs(item: ArrayItem) {
  return 'count' in item
    ? { count: item.count, min: item.min, max: item.max, total: item.total }
    : { count: 1, min: item.length, max: item.length, total: item.length };
}

function measured(arrays: unknown[][]) {
  const lengths = arrays.map((a) => a.length);
  return {
    count: arrays.length,
    min: Math.min(...lengths),
    max: Math.max(...lengths),
    total: lengths.reduce((n, l) => n + l, 0),
  };
}

function countArrays(value: unknown): number {
  if (Array.isArray(value)) return 1 + value.reduce((n: number, v) => n + countArrays(v), 0);
  if (value !== null && typeof value === 'object')
    return Object.values(value).reduce((n: number, v) => n + countArrays(v), 0);
  return 0;
}

const limits = fc.record({
  maxBytes: fc.integer({ min: MIN_MAX_BYTES, max: 4096 }),
  budgetBytes: fc.integer({ min: 64, max: 8192 }),
});
const row = fc.record({
  id: fc.integer(),
  tags: fc.array(fc.string({ maxLength: 8 }), { maxLength: 5 }),
  labels: fc.array(fc.record({ name: fc.string(), ids: fc.array(fc.nat(), { maxLength: 3 }) }), {
    maxLength: 3,
  }),
});
const values = fc.oneof(
  fc.jsonValue(),
  fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }),
  // Big enough to be cut at most budgets.
  fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 10, maxLength: 80 }),
  // Rows with arrays in them: the shape aggregation is for.
  fc.array(row, { minLength: 1, maxLength: 120 }),
  // Many distinct keys holding arrays, with keys that need brackets.
  fc.dictionary(fc.string({ unit: 'binary', maxLength: 40 }), fc.array(fc.nat()), {
    minKeys: 20,
    maxKeys: 90,
  }),
);

/** The envelope the complete result would make, with these flags and no `kept`. */
function uncutSize(value: unknown, coverage: Coverage): number {
  const items = coverage.items.map(({ kept: _kept, ...rest }) => rest);
  const whole = { ...coverage, truncated: false, over_budget: false, items };
  return utf8(JSON.stringify({ coverage: whole, result: value }));
}

describe('buildEnvelope over arbitrary JSON values', () => {
  it('always produces JSON that parses back to the envelope, with coverage as the first key', () => {
    fc.assert(
      fc.property(values, limits, (value, lim) => {
        const built = buildEnvelope({ result: value }, lim);
        expect(built.json.startsWith('{"coverage":{')).toBe(true);
        const parsed = JSON.parse(built.json) as { coverage: Coverage; result: unknown };
        expect(Object.keys(parsed)).toEqual(['coverage', 'result']);
        expect(JSON.stringify(parsed.coverage)).toBe(JSON.stringify(built.envelope.coverage));
        expect(JSON.stringify(parsed.result)).toBe(JSON.stringify(built.envelope.result));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the whole serialized envelope, coverage included, within max-bytes', () => {
    fc.assert(
      fc.property(values, limits, (value, lim) => {
        const { json } = buildEnvelope({ result: value }, lim);
        expect(utf8(json)).toBeLessThanOrEqual(lim.maxBytes);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps within max-bytes with every optional coverage member at its longest', () => {
    const big = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
    fc.assert(
      fc.property(
        values,
        limits,
        big,
        big,
        big,
        (value, lim, upstreamBytes, rows, completeBytes) => {
          const { json } = buildEnvelope(
            { result: value, upstreamBytes, rows, completeBytes, alreadyTruncated: true },
            lim,
          );
          expect(utf8(json)).toBeLessThanOrEqual(lim.maxBytes);
          expect(() => JSON.parse(json) as unknown).not.toThrow();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reports the complete size and truncates exactly when the complete envelope does not fit', () => {
    fc.assert(
      fc.property(values, limits, (value, lim) => {
        const size = utf8(JSON.stringify(value));
        const { envelope } = buildEnvelope({ result: value }, lim);
        expect(envelope.coverage.bytes).toBe(size);
        expect(envelope.coverage.truncated).toBe(
          uncutSize(value, envelope.coverage) > lim.maxBytes,
        );
      }),
      { numRuns: 300 },
    );
  });

  it('returns an untruncated result unchanged', () => {
    fc.assert(
      fc.property(values, limits, (value, lim) => {
        const { envelope, json } = buildEnvelope({ result: value }, lim);
        if (envelope.coverage.truncated) return;
        expect(envelope.result).toBe(value);
        const parsed = JSON.parse(json) as { result: unknown };
        expect(JSON.stringify(parsed.result)).toBe(JSON.stringify(value));
      }),
      { numRuns: 300 },
    );
  });

  it('describes the complete arrays at each path, and what the returned result keeps of them', () => {
    fc.assert(
      fc.property(values, limits, (value, lim) => {
        const { envelope, json } = buildEnvelope({ result: value }, lim);
        const parsed = JSON.parse(json) as { result: unknown };
        const { items } = envelope.coverage;
        expect(new Set(items.map((it) => it.path)).size).toBe(items.length);
        for (const item of items) {
          const complete = arraysAt(value, item.path);
          expect(complete.length, `${item.path} names arrays`).toBeGreaterThan(0);
          if (!item.path.includes('[*]')) expect(complete).toHaveLength(1);
          const said = describedAs(item);
          expect(measured(complete), item.path).toEqual(said);
          const kept = measured(arraysAt(parsed.result, item.path)).total;
          expect(kept, `kept at ${item.path}`).toBe(item.kept ?? said.total);
          if (item.kept !== undefined) expect(item.kept).toBeLessThan(said.total);
        }
        // Every array of the complete result is described by an entry, or counted as omitted.
        const described = items.reduce((n, it) => n + describedAs(it).count, 0);
        expect(described + (envelope.coverage.items_omitted ?? 0)).toBe(countArrays(value));
      }),
      { numRuns: 300 },
    );
  });

  it('lists at most ITEMS_CAP entries, in at most a quarter of max-bytes', () => {
    fc.assert(
      fc.property(values, limits, (value, lim) => {
        const { envelope } = buildEnvelope({ result: value }, lim);
        expect(envelope.coverage.items.length).toBeLessThanOrEqual(ITEMS_CAP);
        expect(utf8(JSON.stringify(envelope.coverage.items))).toBeLessThanOrEqual(
          Math.floor(lim.maxBytes / 4),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('flags over_budget exactly when the envelope is larger than budget-bytes', () => {
    fc.assert(
      fc.property(values, limits, (value, lim) => {
        const { envelope, json } = buildEnvelope({ result: value }, lim);
        const size = utf8(json);
        if (size > lim.budgetBytes) expect(envelope.coverage.over_budget).toBe(true);
        // Measured with the longer spelling `false`, so a true flag may be off by that one byte.
        if (envelope.coverage.over_budget) expect(size).toBeGreaterThanOrEqual(lim.budgetBytes);
      }),
      { numRuns: 300 },
    );
  });
});

/** 2,000 rows with a `tags` array each (issue 17's measurement). */
function taggedRows(): { id: number; title: string; tags: string[] }[] {
  return Array.from({ length: 2000 }, (_, i) => ({
    id: i,
    title: `Row ${i}`,
    tags: ['red', 'green', 'blue'].slice(0, i % 4),
  }));
}

describe('buildEnvelope examples', () => {
  it('cuts a 10 KB array of objects to 2 KB by keeping a prefix of its elements', () => {
    const original = Array.from({ length: 100 }, (_, i) => ({
      id: i,
      title: `Issue number ${i} about the widget`,
      state: i % 3 === 0 ? 'closed' : 'open',
      comments: i * 7,
    }));
    expect(utf8(JSON.stringify(original))).toBeGreaterThan(7_000);
    const { envelope, json } = buildEnvelope(
      { result: original },
      { maxBytes: 2048, budgetBytes: 40_000 },
    );
    const result = envelope.result as typeof original;
    expect(envelope.coverage.truncated).toBe(true);
    expect(utf8(json)).toBeLessThanOrEqual(2048);
    expect(envelope.coverage.items).toEqual([{ path: '$', length: 100, kept: result.length }]);
    expect(result.length).toBeGreaterThan(10);
    // Whole elements from the front; only the last kept one may itself be cut.
    expect(result.slice(0, -1)).toEqual(original.slice(0, result.length - 1));
    const last = result[result.length - 1]!;
    const lastKeys = Object.keys(last);
    expect(lastKeys).toEqual(Object.keys(original[result.length - 1]!).slice(0, lastKeys.length));
    expect(JSON.parse(json)).toEqual({ coverage: envelope.coverage, result });
  });

  it('describes 2,000 rows with a tags array each in two entries, and fits 20,000 bytes whole', () => {
    const rows = taggedRows();
    const { envelope, json } = buildEnvelope(
      { result: rows },
      { maxBytes: 20_000, budgetBytes: 40_000 },
    );
    expect(utf8(json)).toBeLessThanOrEqual(20_000);
    const kept = (envelope.result as unknown[]).length;
    // The last kept row may itself be cut before its tags.
    const keptTags = (envelope.result as { tags?: string[] }[]).reduce(
      (n, r) => n + (r.tags?.length ?? 0),
      0,
    );
    expect(envelope.coverage.items).toEqual([
      { path: '$', length: 2000, kept },
      { path: '$[*].tags', count: 2000, min: 0, max: 3, total: 3000, kept: keptTags },
    ]);
    expect(envelope.coverage.items_omitted).toBeUndefined();
  });

  it('shortens a long string with a marker saying how much was cut', () => {
    const original = 'é'.repeat(5_000);
    const { envelope, json } = buildEnvelope(
      { result: original },
      { maxBytes: 600, budgetBytes: 40_000 },
    );
    const result = envelope.result as string;
    const m = /^(é*)…\[(\d+) more characters\]$/.exec(result);
    expect(m).not.toBeNull();
    expect(m![1]!.length + Number(m![2])).toBe(5_000);
    expect(m![1]!.length).toBeGreaterThan(100);
    expect(utf8(json)).toBeLessThanOrEqual(600);
    expect(envelope.coverage).toMatchObject({ truncated: true, bytes: 10_002, items: [] });
  });

  it('sets over_budget when the envelope is larger than budget-bytes, and only then', () => {
    const result = { text: 'a'.repeat(500) };
    const over = buildEnvelope({ result }, { maxBytes: 10_000, budgetBytes: 400 });
    expect(over.envelope.coverage.over_budget).toBe(true);
    expect(over.envelope.coverage.truncated).toBe(false);
    const under = buildEnvelope({ result }, { maxBytes: 10_000, budgetBytes: 2_000 });
    expect(under.envelope.coverage.over_budget).toBe(false);
    expect(utf8(under.json)).toBeLessThanOrEqual(2_000);
  });

  it('names the arrays of an array of arrays by one path', () => {
    const result = Array.from({ length: 60 }, (_, i) => [i, i]);
    const { envelope } = buildEnvelope({ result }, { maxBytes: 100_000, budgetBytes: 100_000 });
    expect(envelope.coverage.items).toEqual([
      { path: '$', length: 60 },
      { path: '$[*]', count: 60, min: 2, max: 2, total: 120 },
    ]);
  });

  it('lists at most 50 paths and counts the arrays of the rest in items_omitted', () => {
    const result = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, [i, i]]));
    const { envelope } = buildEnvelope({ result }, { maxBytes: 100_000, budgetBytes: 100_000 });
    expect(ITEMS_CAP).toBe(50);
    expect(envelope.coverage.items).toHaveLength(50);
    expect(envelope.coverage.items[0]).toEqual({ path: '$.k0', length: 2 });
    expect(envelope.coverage.items_omitted).toBe(10);
  });

  it('leaves out entries past a quarter of max-bytes and counts their arrays as omitted', () => {
    const long = 'k'.repeat(200);
    const result = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`${long}${i}`, [{ tags: [1] }, { tags: [] }]]),
    );
    const { envelope, json } = buildEnvelope({ result }, { maxBytes: 2_000, budgetBytes: 40_000 });
    expect(utf8(JSON.stringify(envelope.coverage.items))).toBeLessThanOrEqual(500);
    expect(envelope.coverage.items.length).toBeGreaterThan(0);
    expect(envelope.coverage.items.length).toBeLessThan(20);
    // Each key holds one array and one group of two: all 30 are described or omitted.
    const described = envelope.coverage.items.reduce(
      (n, it) => n + ('count' in it ? it.count : 1),
      0,
    );
    expect(described + envelope.coverage.items_omitted!).toBe(30);
    expect(utf8(json)).toBeLessThanOrEqual(2_000);
  });

  it('names keys that are not identifiers unambiguously, even when they hold quotes', () => {
    const result = { "a']['b": [1, 2], 'x y': { 'say "hi"': [true] }, '[*]': [[]] };
    const { envelope, json } = buildEnvelope({ result }, { maxBytes: 10_000, budgetBytes: 10_000 });
    const parsed = (JSON.parse(json) as { result: unknown }).result;
    const paths = envelope.coverage.items.map((i) => i.path);
    expect(paths).toHaveLength(4);
    expect(resolveAll(parsed, paths[0]!)).toEqual([[1, 2]]);
    expect(resolveAll(parsed, paths[1]!)).toEqual([[true]]);
    expect(paths[2]).toBe("$['[*]']");
    expect(paths[3]).toBe("$['[*]'][*]");
  });

  it('keeps a member named __proto__ as an own member when an object is cut', () => {
    const original = JSON.parse(`{"__proto__":[1,2,3],"note":"${'n'.repeat(900)}"}`) as Record<
      string,
      unknown
    >;
    const { envelope, json } = buildEnvelope(
      { result: original },
      { maxBytes: MIN_MAX_BYTES, budgetBytes: 10_000 },
    );
    expect(envelope.coverage.truncated).toBe(true);
    const parsed = (JSON.parse(json) as { result: Record<string, unknown> }).result;
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(envelope.coverage.items).toEqual([{ path: '$.__proto__', length: 3 }]);
    expect(resolveAll(parsed, '$.__proto__')).toEqual([[1, 2, 3]]);
  });

  it('reports rows held back by max-rows as the top array’s length, and what it kept', () => {
    const rows = Array.from({ length: 10 }, (_, i) => ({ id: i }));
    const { envelope, json } = buildEnvelope(
      { result: rows, rows: 25, alreadyTruncated: true },
      { maxBytes: 10_000, budgetBytes: 10_000 },
    );
    expect(envelope.coverage).toMatchObject({ truncated: true, rows: 25 });
    expect(envelope.coverage.items).toEqual([{ path: '$', length: 25, kept: 10 }]);
    expect(JSON.parse(json)).toEqual({ coverage: envelope.coverage, result: rows });
  });

  it('says upstream_bytes and shaped only when the input was shaped', () => {
    const plain = buildEnvelope({ result: [1] }, { maxBytes: 10_000, budgetBytes: 10_000 });
    expect(Object.keys(plain.envelope.coverage)).toEqual([
      'truncated',
      'bytes',
      'over_budget',
      'items',
    ]);
    const shaped = buildEnvelope(
      { result: [1], upstreamBytes: 99 },
      { maxBytes: 10_000, budgetBytes: 10_000 },
    );
    expect(shaped.json).toBe(
      '{"coverage":{"truncated":false,"bytes":3,"upstream_bytes":99,"shaped":true,"over_budget":false,"items":[{"path":"$","length":1}]},"result":[1]}',
    );
  });
});

describe('the envelope cut to budget-bytes (the MCP text copy of an over-budget result)', () => {
  it('is the envelope itself while the envelope is within budget-bytes', () => {
    fc.assert(
      fc.property(values, limits, (value, lim) => {
        const built = buildEnvelope({ result: value }, lim);
        if (!built.envelope.coverage.over_budget) expect(built.withinBudget()).toBe(built.json);
      }),
      { numRuns: 300 },
    );
  });

  it('is past them a truncated envelope of at most budget-bytes, describing the same arrays with what it keeps of them', () => {
    fc.assert(
      fc.property(values, limits, (value, lim) => {
        const built = buildEnvelope({ result: value }, lim);
        if (!built.envelope.coverage.over_budget) return;
        const text = built.withinBudget();
        expect(text.startsWith('{"coverage":{')).toBe(true);
        const cut = JSON.parse(text) as { coverage: Coverage; result: unknown };
        expect(Object.keys(cut)).toEqual(['coverage', 'result']);
        const whole = built.envelope.coverage;
        expect(cut.coverage.truncated).toBe(true);
        expect(cut.coverage.bytes).toBe(whole.bytes);
        const paths = (c: Coverage): unknown[] => c.items.map(({ kept: _k, ...rest }) => rest);
        expect(paths(cut.coverage)).toEqual(paths(whole));
        for (const item of cut.coverage.items) {
          const said = describedAs(item);
          const kept = measured(arraysAt(cut.result, item.path)).total;
          expect(kept, `kept at ${item.path}`).toBe(item.kept ?? said.total);
        }
        // Only a coverage that leaves no room for any result can push it past budget-bytes.
        if (utf8(text) > lim.budgetBytes) {
          expect(cut.result).toBeNull();
          expect(cut.coverage.over_budget).toBe(true);
        } else expect(cut.coverage.over_budget).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('cuts a result nested in an object from the front, keeping the rows that fit', () => {
    const data = Array.from({ length: 5000 }, (_, i) => ({ id: i, name: `row ${i}` }));
    const built = buildEnvelope(
      { result: { total: 5000, data } },
      { maxBytes: 1_000_000, budgetBytes: 2000 },
    );
    expect(built.envelope.result).toEqual({ total: 5000, data });
    const text = built.withinBudget();
    expect(utf8(text)).toBeLessThanOrEqual(2000);
    const cut = JSON.parse(text) as {
      coverage: Coverage;
      result: { total: number; data: unknown[] };
    };
    expect(cut.result.total).toBe(5000);
    expect(cut.result.data.length).toBeGreaterThan(10);
    // Whole rows from the front; the last may be cut too, losing members from its end.
    const n = cut.result.data.length;
    expect(cut.result.data.slice(0, n - 1)).toEqual(data.slice(0, n - 1));
    expect(data[n - 1]).toMatchObject(cut.result.data[n - 1] as object);
    expect(cut.coverage.items).toEqual([
      { path: '$.data', length: 5000, kept: cut.result.data.length },
    ]);
  });
});

describe('a long string cut to its budget', () => {
  // Plain text, text of one-byte characters (what V8 can hold one byte a character),
  // text with JSON's escapes, and text of any code unit, lone surrogates included.
  // Long enough to keep something beside the marker (fast-check's default size would
  // make strings of a few characters, too short for any cut to keep a prefix).
  const long = { minLength: 40, maxLength: 400, size: 'large' } as const;
  const oneByte = fc.string({
    unit: fc.integer({ min: 0, max: 0xff }).map((c) => String.fromCharCode(c)),
    ...long,
  });
  const texts = fc.oneof(
    // Plain text, one byte a character and nothing to escape: its cut is found in one probe.
    fc.string({ unit: fc.constantFrom('a', 'b', ' ', '.'), ...long }),
    oneByte,
    fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', 'é', '…'), ...long }),
    fc.string({ unit: 'grapheme', ...long }),
    fc.string({ unit: 'binary', ...long }),
  );
  const cuts = texts.chain((s) =>
    fc.record({
      s: fc.constant(s),
      budget: fc.integer({ min: 2, max: Math.max(2, utf8(JSON.stringify(s)) - 1) }),
    }),
  );
  /** How many cuts kept a prefix and had a longer one to compare with: the test must see some. */
  let compared = 0;

  it('writes JSON of at most the budget that parses to the value it returns: the longest prefix that fits, and a marker counting the rest', () => {
    fc.assert(
      fc.property(cuts, ({ s, budget }) => {
        const cut = shortenString(s, budget);
        if (cut === undefined) return;
        expect(utf8(cut.json)).toBeLessThanOrEqual(budget);
        expect(JSON.parse(cut.json)).toBe(cut.value);
        const m = /^([^]*)…\[(\d+) more characters\]$/.exec(cut.value as string);
        expect(m).not.toBeNull();
        const prefix = m![1]!;
        expect(s.startsWith(prefix)).toBe(true);
        const points = (t: string): number => [...t].length;
        expect(points(prefix) + Number(m![2])).toBe(points(s));
        // One more code point of the text no longer fits, with its marker.
        const next = String.fromCodePoint(s.codePointAt(prefix.length)!);
        const longer = `${prefix}${next}…[${Number(m![2]) - 1} more characters]`;
        if (prefix.length + next.length < s.length) {
          compared += 1;
          expect(utf8(JSON.stringify(longer)) + 3).toBeGreaterThan(budget);
        }
      }),
      { numRuns: 300 },
    );
    expect(compared).toBeGreaterThan(100);
  });

  it('keeps the JSON of a one-byte text one byte a character: the marker is written as \\u2026', () => {
    fc.assert(
      fc.property(
        oneByte.chain((s) =>
          fc.record({ s: fc.constant(s), budget: fc.integer({ min: 30, max: s.length }) }),
        ),
        ({ s, budget }) => {
          const cut = shortenString(s, budget);
          if (cut === undefined) return;
          expect(/[\u0100-\uffff]/.test(cut.json)).toBe(false);
          expect(cut.json.endsWith(' more characters]"')).toBe(true);
          expect(cut.json).toContain('\\u2026[');
        },
      ),
    );
  });
});
