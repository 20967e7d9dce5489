/**
 * Arbitrary `pick`/`omit` paths for the shaping properties: one to three steps of the
 * given names, each step but the last marked as an array zero to two times (`a[].b`,
 * `a[][].b.c`), the spelling spec-language.md gives them.
 */
import fc from 'fast-check';

export function shapePaths(name: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .array(fc.record({ name, each: fc.integer({ min: 0, max: 2 }) }), {
      minLength: 1,
      maxLength: 3,
    })
    .map((steps) =>
      steps.map((s, i) => s.name + (i < steps.length - 1 ? '[]'.repeat(s.each) : '')).join('.'),
    );
}
