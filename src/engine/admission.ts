/**
 * Admission: whether a call may start now. A draining gateway refuses every call, and
 * past the in-flight cap a call is refused at once, never queued (load shedding); both
 * answer with a retry hint. It also tells who waits for the calls in flight to end.
 */
import { engineError, type EngineError } from './error-catalogue.js';

/** A call admission turned away. */
export interface Refused {
  readonly ok: false;
  readonly error: EngineError;
}

export class Admission {
  private inFlight = 0;
  private draining = false;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(private readonly maxInFlight: number) {}

  get busy(): number {
    return this.inFlight;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /**
   * Whether a call may start now: undefined when it is admitted, and then counted in
   * flight until `leave`; else the refusal. Two plain calls around the caller's own
   * await, not a wrapper taking a closure: a wrapper was one more async function, promise
   * and closure per call.
   */
  enter(): Refused | undefined {
    if (this.draining) {
      return {
        ok: false,
        error: engineError('DRAINING', 'the gateway is shutting down; retry on another replica', {
          retryAfter: 1,
        }),
      };
    }
    if (this.inFlight >= this.maxInFlight) {
      return {
        ok: false,
        error: engineError(
          'OVERLOADED',
          `${this.inFlight} calls are in flight, the most this gateway takes; retry shortly`,
          { retryAfter: 1 },
        ),
      };
    }
    this.inFlight += 1;
    return undefined;
  }

  /** An admitted call settled (on every path: call it in a `finally`). */
  leave(): void {
    this.inFlight -= 1;
    if (this.inFlight === 0 && this.idleWaiters.length > 0)
      for (const w of this.idleWaiters.splice(0)) w();
  }

  /**
   * Resolves when no call is in flight, without refusing new ones: a replaced runtime
   * still serves the requests that picked it up just before the swap.
   */
  whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops admitting calls and resolves when the ones in flight have finished. */
  drain(): Promise<void> {
    this.stop();
    return this.whenIdle();
  }

  /** Stops admitting calls, without waiting for the ones in flight. */
  stop(): void {
    this.draining = true;
  }
}
