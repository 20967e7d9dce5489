/**
 * `restrict` allowlists (spec-language.md, "Top-level nodes"): matchers are built once
 * at boot; a call only tests its values. Arrays are checked element by element.
 */
import type { JsonScalar, RestrictDescriptor } from '../../compiler/descriptor.js';
import { engineError, type EngineError } from '../error-catalogue.js';

export type RestrictMatcher = (input: Record<string, unknown>) => EngineError | undefined;

export function prepareRestrict(
  entries: readonly RestrictDescriptor[],
): RestrictMatcher | undefined {
  if (entries.length === 0) return undefined;
  const checks = entries.map((r) => {
    const allowed = r.values ? new Set<unknown>(r.values) : undefined;
    const pattern = r.pattern !== undefined ? new RegExp(r.pattern, 'u') : undefined;
    const ok = (v: unknown): boolean =>
      (!allowed || allowed.has(v)) && (!pattern || (typeof v === 'string' && pattern.test(v)));
    const hint = r.values
      ? `one of ${r.values.map((v: JsonScalar) => JSON.stringify(v)).join(', ')}`
      : `a value matching ${r.pattern}`;
    return { name: r.argument, ok, hint };
  });
  return function restrictMatcher(input) {
    for (const c of checks) {
      if (!Object.hasOwn(input, c.name)) continue;
      const v = input[c.name];
      const values = Array.isArray(v) ? v : [v];
      const bad = values.findIndex((x) => !c.ok(x));
      if (bad >= 0) {
        const field = Array.isArray(v) ? `/${c.name}/${bad}` : `/${c.name}`;
        return engineError(
          'DENIED_BY_RESTRICT',
          `argument ${c.name} is not allowed: it must be ${c.hint}`,
          {
            details: [{ field, message: `must be ${c.hint}` }],
          },
        );
      }
    }
    return undefined;
  };
}
