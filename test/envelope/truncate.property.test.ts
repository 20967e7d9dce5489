import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEnvelope, ITEMS_CAP, type Coverage } from '../../src/envelope/envelope.js';

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * Resolves a coverage path (`$`, `.name`, `[3]`, `['any key']` with JSON escapes and
 * `\'`) in a value; undefined when any step is missing.
 */
function resolvePath(root: unknown, path: string): unknown {
  if (!path.startsWith('$')) throw new Error(`path ${path} does not start at $`);
  let node = root;
  let i = 1;
  const step = (key: string | number): void => {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) node = undefined;
    else node = (node as Record<string | number, unknown>)[key];
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
    } else if (path[i] === '[') {
      const m = /^\[(\d+)\]/.exec(path.slice(i));
      if (!m) throw new Error(`bad index at ${i} in ${path}`);
      step(Number(m[1]));
      i += m[0].length;
    } else throw new Error(`unexpected ${path[i]} at ${i} in ${path}`);
  }
  return node;
}

function countArrays(value: unknown): number {
  if (Array.isArray(value)) return 1 + value.reduce((n: number, v) => n + countArrays(v), 0);
  if (value !== null && typeof value === 'object')
    return Object.values(value).reduce((n: number, v) => n + countArrays(v), 0);
  return 0;
}

const limits = fc.record({
  maxBytes: fc.integer({ min: 64, max: 4096 }),
  budgetBytes: fc.integer({ min: 64, max: 8192 }),
});
const values = fc.oneof(
  fc.jsonValue(),
  fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }),
  // Big enough to be cut at most budgets.
  fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 10, maxLength: 80 }),
);

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

  it('reports the complete size and truncates exactly when the original does not fit', () => {
    fc.assert(
      fc.property(values, limits, (value, lim) => {
        const size = utf8(JSON.stringify(value));
        const { envelope } = buildEnvelope({ result: value }, lim);
        expect(envelope.coverage.bytes).toBe(size);
        expect(envelope.coverage.truncated).toBe(size > lim.maxBytes);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a truncated result within max-bytes', () => {
    fc.assert(
      fc.property(values, limits, (value, lim) => {
        const { envelope, json } = buildEnvelope({ result: value }, lim);
        const parsed = JSON.parse(json) as { result: unknown };
        if (envelope.coverage.truncated)
          expect(utf8(JSON.stringify(parsed.result))).toBeLessThanOrEqual(lim.maxBytes);
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

  it('names arrays by paths that resolve to arrays of the reported kept or full length', () => {
    fc.assert(
      fc.property(values, limits, (value, lim) => {
        const { envelope, json } = buildEnvelope({ result: value }, lim);
        const parsed = JSON.parse(json) as { result: unknown };
        const { items } = envelope.coverage;
        expect(new Set(items.map((it) => it.path)).size).toBe(items.length);
        for (const item of items) {
          const found = resolvePath(parsed.result, item.path);
          expect(Array.isArray(found), `${item.path} is an array`).toBe(true);
          expect((found as unknown[]).length).toBe(item.kept ?? item.length);
          if (item.kept !== undefined) expect(item.kept).toBeLessThan(item.length);
        }
        // Every array of the returned result is listed, or counted as omitted.
        expect(items.length + (envelope.coverage.items_omitted ?? 0)).toBe(
          countArrays(parsed.result),
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
    expect(utf8(JSON.stringify(result))).toBeLessThanOrEqual(2048);
    expect(envelope.coverage.items).toEqual([{ path: '$', length: 100, kept: result.length }]);
    expect(result.length).toBeGreaterThan(10);
    // Whole elements from the front; only the last kept one may itself be cut.
    expect(result.slice(0, -1)).toEqual(original.slice(0, result.length - 1));
    const last = result[result.length - 1]!;
    const lastKeys = Object.keys(last);
    expect(lastKeys).toEqual(Object.keys(original[result.length - 1]!).slice(0, lastKeys.length));
    expect(JSON.parse(json)).toEqual({ coverage: envelope.coverage, result });
  });

  it('shortens a long string with a marker saying how much was cut', () => {
    const original = 'é'.repeat(5_000);
    const { envelope } = buildEnvelope(
      { result: original },
      { maxBytes: 300, budgetBytes: 40_000 },
    );
    const result = envelope.result as string;
    const m = /^(é*)…\[(\d+) more characters\]$/.exec(result);
    expect(m).not.toBeNull();
    expect(m![1]!.length + Number(m![2])).toBe(5_000);
    expect(m![1]!.length).toBeGreaterThan(100);
    expect(utf8(JSON.stringify(result))).toBeLessThanOrEqual(300);
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

  it('lists at most 50 arrays and counts the rest in items_omitted', () => {
    const result = Array.from({ length: 60 }, (_, i) => [i]);
    const { envelope } = buildEnvelope({ result }, { maxBytes: 100_000, budgetBytes: 100_000 });
    expect(ITEMS_CAP).toBe(50);
    expect(envelope.coverage.items).toHaveLength(50);
    expect(envelope.coverage.items[0]).toEqual({ path: '$', length: 60 });
    expect(envelope.coverage.items[1]).toEqual({ path: '$[0]', length: 1 });
    expect(envelope.coverage.items_omitted).toBe(11);
  });

  it('names keys that are not identifiers unambiguously, even when they hold quotes', () => {
    const result = { "a']['b": [1, 2], 'x y': { 'say "hi"': [true] } };
    const { envelope, json } = buildEnvelope({ result }, { maxBytes: 10_000, budgetBytes: 10_000 });
    const parsed = (JSON.parse(json) as { result: unknown }).result;
    const paths = envelope.coverage.items.map((i) => i.path);
    expect(paths).toHaveLength(2);
    expect(resolvePath(parsed, paths[0]!)).toEqual([1, 2]);
    expect(resolvePath(parsed, paths[1]!)).toEqual([true]);
  });

  it('keeps a member named __proto__ as an own member when an object is cut', () => {
    const original = JSON.parse(`{"__proto__":[1,2,3],"note":"${'n'.repeat(400)}"}`) as Record<
      string,
      unknown
    >;
    const { envelope, json } = buildEnvelope(
      { result: original },
      { maxBytes: 120, budgetBytes: 10_000 },
    );
    expect(envelope.coverage.truncated).toBe(true);
    const parsed = (JSON.parse(json) as { result: Record<string, unknown> }).result;
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(envelope.coverage.items).toEqual([{ path: '$.__proto__', length: 3 }]);
    expect(resolvePath(parsed, '$.__proto__')).toEqual([1, 2, 3]);
  });
});
