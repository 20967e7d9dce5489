/**
 * Compiles every grant's validator in small slices after start-up, so readiness does
 * not wait for them and a first call finds its validator ready. Each slice is one turn
 * of the event loop: requests arriving meanwhile are served between slices.
 */
import type { Operation } from './operation.js';

/** Validators compiled per turn of the event loop. */
const SLICE = 25;

/**
 * A schema that does not compile is reported through `onProblem`, and that grant
 * answers INTERNAL. Stops early once `stopped()` says so (the gateway drains).
 */
export function warmValidators(
  operations: Iterable<Operation>,
  onProblem: (tool: string, message: string) => void,
  stopped: () => boolean,
): Promise<void> {
  const ops = [...operations];
  return new Promise((resolve) => {
    const slice = (from: number): void => {
      for (let i = from; i < Math.min(from + SLICE, ops.length); i++) {
        try {
          ops[i]!.validate.warm();
        } catch (err) {
          onProblem(ops[i]!.name, (err as Error).message);
        }
      }
      if (from + SLICE < ops.length && !stopped()) setImmediate(slice, from + SLICE);
      else resolve();
    };
    setImmediate(slice, 0);
  });
}
