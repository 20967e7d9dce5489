/**
 * pick / omit fail closed (spec-language.md, "Shaping results (`pick` and `omit`)"): whatever
 * shape the upstream sends, what the shaper returns holds no field the paths would have
 * removed. Unit tests of the mismatch rules, and a property over arbitrary JSON.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shapePaths } from '../helpers/shape-paths.js';
import { prepareShaper } from '../../src/envelope/shape.js';
import type { ShapeDescriptor } from '../../src/envelope/shape-path.js';
import { parseShapePath, shapeTree, type ShapeStep } from '../../src/envelope/shape-path.js';

function shaped(shape: ShapeDescriptor, result: unknown) {
  return prepareShaper(shape)({ result, resultJson: JSON.stringify(result) });
}

describe('shaping fails closed when the data does not have the shape of the paths', () => {
  const SECRET = 'omitted-value-q7';
  const leaks = (v: unknown): boolean => JSON.stringify(v).includes(SECRET);

  it('pick drops an array met where an object was named, instead of keeping it whole', () => {
    const out = shaped(
      { mode: 'pick', paths: ['id', 'user.login'] },
      { id: 1, user: [{ login: 'ada', email: SECRET }] },
    );
    expect(out.result).toEqual({ id: 1 });
  });

  it('pick drops an object met where [] was named, instead of keeping it whole', () => {
    const out = shaped(
      { mode: 'pick', paths: ['id', 'labels[].name'] },
      { id: 1, labels: { name: 'bug', secret: SECRET } },
    );
    expect(out.result).toEqual({ id: 1 });
  });

  it('pick leaves out the elements of a stepped-into array that are arrays where objects were named', () => {
    const out = shaped(
      { mode: 'pick', paths: ['labels[].name'] },
      { labels: [{ name: 'a', color: 'x' }, [{ name: 'b', secret: SECRET }], 'c', null] },
    );
    expect(out.result).toEqual({ labels: [{ name: 'a' }, 'c', null] });
  });

  it('pick on a result that is an array of arrays keeps none of the inner arrays', () => {
    const out = shaped({ mode: 'pick', paths: ['id'] }, [
      { id: 1, s: 'x' },
      [{ id: 2, s: SECRET }],
    ]);
    expect(out.result).toEqual([{ id: 1 }]);
  });

  it('omit applies the path to each element of an array met where an object was named', () => {
    const out = shaped(
      { mode: 'omit', paths: ['user.email'] },
      { id: 1, user: [{ login: 'ada', email: SECRET }, [{ email: SECRET, login: 'bob' }]] },
    );
    expect(out.result).toEqual({ id: 1, user: [{ login: 'ada' }, [{ login: 'bob' }]] });
  });

  it('omit shapes an object met where [] was named as that one element', () => {
    const out = shaped(
      { mode: 'omit', paths: ['labels[].secret'] },
      { labels: { name: 'bug', secret: SECRET } },
    );
    expect(out.result).toEqual({ labels: { name: 'bug' } });
  });

  it('omit reaches the rows of a result that is an array of arrays', () => {
    const out = shaped({ mode: 'omit', paths: ['s'] }, [
      [{ id: 1, s: SECRET }],
      { id: 2, s: SECRET },
    ]);
    expect(out.result).toEqual([[{ id: 1 }], { id: 2 }]);
    expect(leaks(out.result)).toBe(false);
  });
});

/** Every chain of object keys in `v`, array levels skipped (`{a:[{b:1}]}` holds a, a.b). */
function keyPaths(v: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  if (Array.isArray(v)) for (const el of v) keyPaths(el, prefix, out);
  else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      const p = [...prefix, k];
      out.push(p);
      keyPaths(x, p, out);
    }
  return out;
}

const startsWith = (a: readonly string[], b: readonly string[]): boolean =>
  b.length <= a.length && b.every((s, i) => a[i] === s);

describe('shaping arbitrary JSON of any shape', () => {
  const name = fc.constantFrom('a', 'b', 'c', '__proto__');
  const path = shapePaths(name);
  // Keys drawn from the same few names, so the data meets the paths at every shape.
  const data = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(null, 1, 'x'),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(name, tie('value'), { maxKeys: 3 }),
    ),
  })).value;

  it('never returns a field an omit path names, nor one outside the pick paths', () => {
    fc.assert(
      fc.property(
        data,
        fc.uniqueArray(path, { minLength: 1, maxLength: 4 }),
        fc.constantFrom('pick' as const, 'omit' as const),
        (value, paths, mode) => {
          const steps = paths.map(
            (p) => (parseShapePath(p) as { readonly steps: readonly ShapeStep[] }).steps,
          );
          fc.pre(shapeTree(steps).ok);
          const names = steps.map((s) => s.map((x) => x.name));
          const out = prepareShaper({ mode, paths })({ result: value }).result;
          for (const kp of keyPaths(out)) {
            if (mode === 'omit') expect(names.some((n) => startsWith(kp, n))).toBe(false);
            // pick: a kept key lies on a path, or below one named whole.
            else expect(names.some((n) => startsWith(n, kp) || startsWith(kp, n))).toBe(true);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
