/**
 * A token bucket of log lines: `burst` lines at once, refilled at `perSecond`. A line
 * past the budget is not logged but counted (lines and bytes), so one summary can say
 * what was dropped. Pure: the clock is given.
 */

export interface Dropped {
  readonly lines: number;
  readonly bytes: number;
  /** From the first line dropped to now. */
  readonly ms: number;
}

export class LineBudget {
  private tokens: number;
  private refilledAt: number;
  private lines = 0;
  private bytes = 0;
  private firstDropAt = 0;

  constructor(
    readonly burst: number,
    readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.refilledAt = now();
  }

  /** Whether a line of `bytes` may be logged now; when not, it is counted as dropped. */
  admit(bytes: number): boolean {
    const t = this.now();
    this.tokens = Math.min(
      this.burst,
      this.tokens + ((t - this.refilledAt) / 1000) * this.perSecond,
    );
    this.refilledAt = t;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    if (this.lines === 0) this.firstDropAt = t;
    this.lines += 1;
    this.bytes += bytes;
    return false;
  }

  /** True while dropped lines wait to be summarised. */
  get dropping(): boolean {
    return this.lines > 0;
  }

  /** What was dropped since the last summary, then forgotten; undefined when nothing was. */
  takeDropped(): Dropped | undefined {
    if (this.lines === 0) return undefined;
    const d = { lines: this.lines, bytes: this.bytes, ms: this.now() - this.firstDropAt };
    this.lines = 0;
    this.bytes = 0;
    return d;
  }
}
