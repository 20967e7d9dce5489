import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { releaseStartupGarbage } from '../../src/process/release-memory.js';

/** A WeakRef to garbage: nothing else holds what it points at. */
function garbage(): WeakRef<number[][]> {
  return new WeakRef(Array.from({ length: 2_000 }, (_, i) => [i, i + 1]));
}

describe('giving back what start-up left behind', () => {
  it('collects garbage without adding gc to the program’s globals', async () => {
    const hadGc = 'gc' in globalThis;
    const ref = garbage();
    // A WeakRef's target lives to the end of the turn that made or read it.
    await nextTurn();
    releaseStartupGarbage();
    expect(ref.deref()).toBeUndefined();
    expect('gc' in globalThis).toBe(hadGc);
  });
});
