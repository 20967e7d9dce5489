/** Exclusive groups (`exclusive "since" "search"`): at most one member may be given. */
import { engineError, type EngineError } from '../error-catalogue.js';

export type ExclusiveCheck = (input: Record<string, unknown>) => EngineError | undefined;

export function prepareExclusive(
  groups: readonly (readonly string[])[],
): ExclusiveCheck | undefined {
  if (groups.length === 0) return undefined;
  return function exclusiveCheck(input) {
    for (const group of groups) {
      const given = group.filter((n) => Object.hasOwn(input, n) && input[n] !== undefined);
      if (given.length > 1) {
        return engineError(
          'EXCLUSIVE_ARGUMENTS',
          `give at most one of ${group.join(', ')}; got ${given.join(' and ')}`,
          {
            details: given.map((n) => ({
              field: `/${n}`,
              message: `exclusive with ${group.filter((g) => g !== n).join(', ')}`,
            })),
          },
        );
      }
    }
    return undefined;
  };
}
