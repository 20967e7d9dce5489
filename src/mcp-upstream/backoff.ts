/**
 * Restart delays for a stdio child that exits: 1 s, doubling to 30 s (spec-language.md,
 * "Connections"), so a child that crashes at once does not spin the CPU, and one that
 * crashed once comes back quickly.
 */
export class Backoff {
  private current: number;

  constructor(
    readonly firstMs: number,
    readonly maxMs: number,
  ) {
    this.current = firstMs;
  }

  /** The delay to wait now; the next one is twice as long, up to maxMs. */
  next(): number {
    const delay = this.current;
    this.current = Math.min(this.current * 2, this.maxMs);
    return delay;
  }

  reset(): void {
    this.current = this.firstMs;
  }
}
