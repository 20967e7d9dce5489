import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shapePaths } from '../helpers/shape-paths.js';
import { prepareShaper } from '../../src/envelope/shape.js';
import { HTTP_OUTPUT_SCHEMA, shapedOutputSchema } from '../../src/compiler/output-schema.js';
import type { ShapeDescriptor } from '../../src/envelope/shape-path.js';
import { parseShapePath, shapeTree, type ShapeStep } from '../../src/envelope/shape-path.js';

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

const issues = [
  {
    number: 1,
    title: 'Crash',
    body: 'long text',
    state: 'open',
    labels: [
      { name: 'bug', color: 'red' },
      { name: 'p1', color: 'blue' },
    ],
    user: { login: 'ada', avatar_url: 'https://x/a.png' },
  },
  { number: 2, title: 'Slow', state: 'closed', labels: 'none', user: null },
];

function shaped(shape: ShapeDescriptor, result: unknown) {
  return prepareShaper(shape)({ result, resultJson: JSON.stringify(result) });
}

describe('pick', () => {
  it('keeps only the named fields of each element, in the upstream order', () => {
    const out = shaped(
      { mode: 'pick', paths: ['user.login', 'number', 'labels[].name', 'title'] },
      issues,
    );
    expect(out.result).toEqual([
      {
        number: 1,
        title: 'Crash',
        labels: [{ name: 'bug' }, { name: 'p1' }],
        user: { login: 'ada' },
      },
      { number: 2, title: 'Slow', labels: 'none', user: null },
    ]);
    expect(Object.keys((out.result as object[])[0]!)).toEqual([
      'number',
      'title',
      'labels',
      'user',
    ]);
  });

  it('reports the size before shaping and drops the stale JSON of the unshaped result', () => {
    const out = shaped({ mode: 'pick', paths: ['number'] }, issues);
    expect(out.upstreamBytes).toBe(Buffer.byteLength(JSON.stringify(issues)));
    expect(out.resultJson).toBeUndefined();
  });

  it('prefers the bytes the upstream sent when the backend knows them', () => {
    const out = prepareShaper({ mode: 'pick', paths: ['a'] })({
      result: { a: 1, b: 2 },
      receivedBytes: 40,
    });
    expect(out).toMatchObject({ result: { a: 1 }, upstreamBytes: 40 });
  });

  it('keeps a picked object whose fields are all absent as {}, and a whole field over its parts', () => {
    const out = shaped(
      { mode: 'pick', paths: ['meta.x', 'user', 'user.login'] },
      {
        meta: { y: 1 },
        user: { login: 'a', id: 2 },
        other: true,
      },
    );
    expect(out.result).toEqual({ meta: {}, user: { login: 'a', id: 2 } });
  });

  it('steps through nested arrays and leaves values that are not arrays untouched', () => {
    const out = shaped(
      { mode: 'pick', paths: ['grid[][].v'] },
      {
        grid: [[{ v: 1, w: 2 }], 'x', [3]],
      },
    );
    expect(out.result).toEqual({ grid: [[{ v: 1 }], 'x', [3]] });
  });

  it('keeps a field named __proto__ as an own member', () => {
    const result = JSON.parse('{"__proto__":{"a":1,"b":2},"c":3}') as object;
    const out = shaped({ mode: 'pick', paths: ['__proto__.a'] }, result);
    expect(Object.hasOwn(out.result as object, '__proto__')).toBe(true);
    expect(JSON.stringify(out.result)).toBe('{"__proto__":{"a":1}}');
  });

  it('leaves a text result as it is, still saying how large it was', () => {
    const out = shaped({ mode: 'pick', paths: ['a'] }, 'plain text');
    expect(out).toMatchObject({ result: 'plain text', upstreamBytes: 12 });
  });
});

describe('omit', () => {
  it('drops the named fields and keeps the rest, through arrays', () => {
    const out = shaped(
      { mode: 'omit', paths: ['body', 'labels[].color', 'user.avatar_url'] },
      issues,
    );
    expect(out.result).toEqual([
      {
        number: 1,
        title: 'Crash',
        state: 'open',
        labels: [{ name: 'bug' }, { name: 'p1' }],
        user: { login: 'ada' },
      },
      { number: 2, title: 'Slow', state: 'closed', labels: 'none', user: null },
    ]);
  });
});

describe('the outputSchema of a shaped grant', () => {
  const ajv = new Ajv2020({ strict: false });
  const envelopeOf = (result: unknown) => ({
    coverage: {
      truncated: false,
      bytes: 1,
      upstream_bytes: 2,
      shaped: true,
      over_budget: false,
      items: [],
    },
    result,
  });

  it('accepts what pick returns and refuses a field pick would have dropped', () => {
    const shape: ShapeDescriptor = {
      mode: 'pick',
      paths: ['number', 'labels[].name', 'user.login'],
    };
    const validate = ajv.compile(shapedOutputSchema(HTTP_OUTPUT_SCHEMA, shape));
    expect(validate(envelopeOf(shaped(shape, issues).result))).toBe(true);
    expect(validate(envelopeOf(shaped(shape, issues[0]).result))).toBe(true);
    expect(validate(envelopeOf([{ number: 1, body: 'x' }]))).toBe(false);
    expect(validate(envelopeOf({ number: 1, labels: [{ name: 'a', color: 'b' }] }))).toBe(false);
  });

  it('accepts what omit returns and refuses a field omit drops', () => {
    const shape: ShapeDescriptor = { mode: 'omit', paths: ['body', 'user.avatar_url'] };
    const validate = ajv.compile(shapedOutputSchema(HTTP_OUTPUT_SCHEMA, shape));
    expect(validate(envelopeOf(shaped(shape, issues).result))).toBe(true);
    expect(validate(envelopeOf([{ number: 1, user: { avatar_url: 'x' } }]))).toBe(false);
  });

  it('names the kept fields in the description and keeps coverage the compact object every tool shares', () => {
    const schema = shapedOutputSchema(HTTP_OUTPUT_SCHEMA, { mode: 'pick', paths: ['a', 'b.c'] });
    const validate = ajv.compile(schema);
    expect(validate({ coverage: envelopeOf({ a: 1 }).coverage, result: { a: 1 } })).toBe(true);
    expect(validate({ coverage: envelopeOf({ a: 1 }).coverage, result: { a: 1, z: 2 } })).toBe(
      false,
    );
    const props = schema.properties as Record<string, { description?: string }>;
    expect(props.result!.description).toContain('Only these fields are kept: a, b.c.');
    expect(props.coverage).toEqual(
      (HTTP_OUTPUT_SCHEMA.properties as Record<string, unknown>).coverage,
    );
  });
});

describe('shaping arbitrary JSON', () => {
  const name = fc.constantFrom('a', 'b', 'c', '__proto__', 'x y');
  const path = shapePaths(name);
  const data = fc
    .jsonValue({ maxDepth: 5 })
    .chain((v) =>
      fc.oneof(
        fc.constant(v),
        fc.dictionary(name, fc.jsonValue({ maxDepth: 4 })),
        fc.array(fc.dictionary(name, fc.jsonValue({ maxDepth: 3 }))),
      ),
    );
  const ajv = new Ajv2020({ strict: false });

  it('returns what the derived outputSchema accepts, for pick and for omit', () => {
    fc.assert(
      fc.property(
        data,
        fc.uniqueArray(path, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('pick' as const, 'omit' as const),
        (value, paths, mode) => {
          const shape: ShapeDescriptor = { mode, paths };
          const tree = shapeTree(
            paths.map((p) => (parseShapePath(p) as { readonly steps: readonly ShapeStep[] }).steps),
          );
          fc.pre(tree.ok);
          const out = prepareShaper(shape)({ result: value });
          const validate = ajv.compile(shapedOutputSchema(HTTP_OUTPUT_SCHEMA, shape));
          const envelope = {
            coverage: {
              truncated: false,
              bytes: 0,
              upstream_bytes: 0,
              shaped: true,
              over_budget: false,
              items: [],
            },
            result: JSON.parse(JSON.stringify(out.result ?? null)) as unknown,
          };
          expect(validate(envelope), JSON.stringify(validate.errors)).toBe(true);
          expect(out.upstreamBytes).toBe(utf8(JSON.stringify(value ?? null)));
        },
      ),
      // Each run compiles a schema: fewer runs than the envelope's properties.
      { numRuns: 120 },
    );
  });
});
