/**
 * Admission in front of a connection pool (one upstream origin's undici pool, the
 * Postgres pool): the gateway, not the pool, decides which call gets a connection, so a
 * call that cannot be served in time is refused at once instead of waiting in the
 * pool's own queue until its deadline passes (docs/reliability.md, "Admission at the
 * upstream").
 *
 * At most `slots` calls hold a connection; the rest wait here, first come first served.
 * With `slots` connections each busy for a smoothed service time T, the queue drains by
 * `slots` calls every T, so the call at queue position q (0-based) starts after about
 * ceil((q + 1) / slots) × T (every call in service may have only just started). Its
 * latest start is the end of its budget, less S, a pessimistic service time, when it
 * must also finish within the budget (an HTTP deadline; a pool checkout-timeout only
 * bounds the wait). A call is refused on arrival when its start would come after its
 * latest start, and a waiting call is refused the moment its latest start passes. When a
 * connection frees, a waiter that can no longer make it is refused and the next served.
 *
 * T is the smoothed time a call held its connection, S that plus four times its smoothed
 * deviation, as TCP estimates its retransmission timeout (RFC 6298): the queue's pace is
 * judged by the mean, whether a call can still finish by a near worst case. Before the
 * first call has finished both are unknown; then at most `slots` calls wait, the bound
 * on a queue that nothing has measured yet.
 *
 * A call finding a free connection is admitted, whatever S says: the estimate only
 * decides how long a queue is worth keeping, and a call that goes out is also the only
 * way to learn that a slow upstream has recovered.
 *
 * Admitted is not yet sent. On a busy event loop the request may reach the wire seconds
 * later (its socket connecting, the loop taking a burst of requests), after most or all
 * of its deadline; `mayStart` is asked at that moment, and a call that can no longer
 * finish in time is then refused rather than sent to time out (issue 37: of 2,000 calls,
 * the 256 that found a free connection went out after their deadline and all got 504).
 * There S is the measure, as for a call that waited; when S exceeds the whole budget, the
 * one call in service still goes, for the same reason a free connection is always taken:
 * it is how a recovery is learnt.
 */
import type { Cancellation } from '../../../outbound/cancellation.js';

/** Why a call got no connection. */
export type GateRefusal =
  | {
      readonly kind: 'shed';
      /** Calls waiting when it was refused, and connections in all. */
      readonly waiting: number;
      readonly slots: number;
      /** Seconds after which one service time will have passed. */
      readonly retryAfter: number;
    }
  | { readonly kind: 'cancelled' };

/** A connection is the caller's: it must call `leave` exactly once. */
export const ADMITTED = true;
export type GateEntry = typeof ADMITTED | GateRefusal;

export interface EnterOptions {
  /** How long the call may wait for a connection before it must have started, in ms. */
  readonly budgetMs: number;
  /**
   * The budget is the whole call's deadline: the call must also finish within it, so it
   * must start one service time (S) before the budget ends.
   */
  readonly mustFinish: boolean;
  readonly cancel?: Cancellation | undefined;
}

interface Waiter {
  /** performance.now() by which the call must have started. */
  readonly startBy: number;
  readonly deadline: number;
  readonly mustFinish: boolean;
  readonly resolve: (entry: GateEntry) => void;
  readonly cancel: Cancellation | undefined;
  timer: NodeJS.Timeout | undefined;
}

export class ConnectionGate {
  private active = 0;
  private readonly queue: Waiter[] = [];
  /** Index of the queue's first live entry (the array is compacted now and then). */
  private head = 0;
  private srtt: number | undefined;
  private rttvar = 0;

  constructor(readonly slots: number) {}

  /** Calls waiting for a connection. */
  get waiting(): number {
    return this.queue.length - this.head;
  }

  get inService(): number {
    return this.active;
  }

  /** The smoothed service time T in ms, or undefined before the first observation. */
  get smoothedServiceMs(): number | undefined {
    return this.srtt;
  }

  /** The pessimistic service time S in ms, or undefined before the first observation. */
  get serviceEstimateMs(): number | undefined {
    return this.srtt === undefined ? undefined : this.srtt + 4 * this.rttvar;
  }

  /**
   * ADMITTED at once when a connection is free (no promise, no timer: the common case
   * costs a comparison), else a promise of ADMITTED or a refusal.
   */
  enter(opts: EnterOptions): GateEntry | Promise<GateEntry> {
    if (this.active < this.slots && this.waiting === 0) {
      this.active += 1;
      return ADMITTED;
    }
    if (opts.cancel?.cancelled) return { kind: 'cancelled' };
    const now = performance.now();
    const s = this.serviceEstimateMs;
    const startBy = now + opts.budgetMs - (opts.mustFinish && s !== undefined ? s : 0);
    const position = this.waiting;
    const fits =
      this.srtt === undefined
        ? position < this.slots
        : now + Math.ceil((position + 1) / this.slots) * this.srtt <= startBy;
    if (!fits) return this.refusal();
    return new Promise<GateEntry>((resolve) => {
      const w: Waiter = {
        startBy,
        deadline: now + opts.budgetMs,
        mustFinish: opts.mustFinish,
        resolve,
        cancel: opts.cancel,
        timer: undefined,
      };
      w.timer = setTimeout(() => this.drop(w, this.refusal()), Math.max(0, startBy - now));
      // One listener at a time: the backend's exchange replaces it once the call starts.
      opts.cancel?.onCancel(() => this.drop(w, { kind: 'cancelled' }));
      this.queue.push(w);
    });
  }

  /**
   * Gives the connection back. `serviceMs` is how long the call held it, when that says
   * something about the upstream (not for a call its caller cancelled).
   */
  leave(serviceMs?: number): void {
    if (serviceMs !== undefined) this.observe(serviceMs);
    this.active -= 1;
    // The clock is read only for a queue to serve: a reading costs about 0.1 µs, and a
    // call that found a free connection left nobody waiting (the usual case).
    if (this.waiting === 0) return;
    const now = performance.now();
    const s = this.serviceEstimateMs ?? 0;
    while (this.active < this.slots && this.waiting > 0) {
      const w = this.queue[this.head]!;
      this.queue[this.head] = undefined as unknown as Waiter;
      this.head += 1;
      clearTimeout(w.timer);
      w.cancel?.onCancel(undefined);
      // Its latest start was fixed on arrival; a slower upstream since may have moved it.
      if (now > w.startBy || (w.mustFinish && now + s > w.deadline)) {
        w.resolve(this.refusal());
        continue;
      }
      this.active += 1;
      w.resolve(ADMITTED);
    }
    this.compact();
  }

  /**
   * Whether an admitted call may still go out now, to finish by `deadline`
   * (performance.now() time) of a `budgetMs` budget: when the pessimistic service time S
   * still fits before the deadline (a queued call's rule). Before anything has been
   * measured, when half its
   * budget is left: nothing says less will do, and a long wait says the gateway is busy.
   * When the upstream seems too slow for any call of this budget, the one call in
   * service goes all the same, if it has half its budget left: it is how a recovery is
   * learnt. `now` is the caller's reading of the clock, when it has just made one.
   */
  mayStart(deadline: number, budgetMs: number, now: number = performance.now()): boolean {
    const needs = this.serviceEstimateMs ?? budgetMs / 2;
    if (now + needs <= deadline) return true;
    return needs >= budgetMs && this.active <= 1 && now + budgetMs / 2 <= deadline;
  }

  private observe(ms: number): void {
    if (this.srtt === undefined) {
      this.srtt = ms;
      this.rttvar = ms / 2;
      return;
    }
    this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - ms);
    this.srtt = 0.875 * this.srtt + 0.125 * ms;
  }

  private drop(w: Waiter, entry: GateEntry): void {
    const i = this.queue.indexOf(w, this.head);
    if (i < 0) return;
    clearTimeout(w.timer);
    w.cancel?.onCancel(undefined);
    this.queue.splice(i, 1);
    w.resolve(entry);
    this.compact();
  }

  private compact(): void {
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }

  /** The refusal of a call that cannot be served in time, with its retry hint. */
  refusal(): GateRefusal {
    return {
      kind: 'shed',
      waiting: this.waiting,
      slots: this.slots,
      retryAfter: Math.max(1, Math.ceil((this.serviceEstimateMs ?? 1000) / 1000)),
    };
  }
}
