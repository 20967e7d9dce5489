/**
 * The stderr log's token bucket (src/mcp-upstream/line-budget.ts), on a clock the
 * test moves: pure logic, so no child and no wall clock.
 */
import { describe, expect, it } from 'vitest';
import { LineBudget } from '../../src/mcp-upstream/line-budget.js';

function budget(burst: number, perSecond: number) {
  let t = 1_000;
  const b = new LineBudget(burst, perSecond, () => t);
  return { b, advance: (ms: number) => (t += ms) };
}

describe('a line budget', () => {
  it('admits a burst at once, then counts every line past it with its bytes', () => {
    const { b, advance } = budget(3, 1);
    expect([1, 2, 3].map((n) => b.admit(n))).toEqual([true, true, true]);
    expect(b.dropping).toBe(false);
    expect(b.admit(10)).toBe(false);
    advance(400);
    expect(b.admit(20)).toBe(false);
    expect(b.dropping).toBe(true);
    expect(b.takeDropped()).toEqual({ lines: 2, bytes: 30, ms: 400 });
    expect(b.takeDropped()).toBeUndefined();
    expect(b.dropping).toBe(false);
  });

  it('refills at its steady rate, never above the burst', () => {
    const { b, advance } = budget(2, 10);
    b.admit(1);
    b.admit(1);
    expect(b.admit(1)).toBe(false);
    advance(100); // one line's worth at 10 a second
    expect(b.admit(1)).toBe(true);
    expect(b.admit(1)).toBe(false);
    advance(60_000); // a long quiet spell refills to the burst, not to 600 lines
    expect([b.admit(1), b.admit(1), b.admit(1)]).toEqual([true, true, false]);
  });
});
