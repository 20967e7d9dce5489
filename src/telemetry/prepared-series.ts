/**
 * One label set of a prom-client counter or histogram, counted without prom-client's
 * per-observation work: `inc(labels)` and `observe(labels, v)` check the labels against
 * the metric's names and hash them into a key on every call (~0.5–1 µs each, four to six
 * per tool call). A series here goes through prom-client once, on its first count, which
 * makes the series exactly as before (same labels object, same place among the metric's
 * series); it then keeps prom-client's own record of the series and adds to it in place.
 * Nothing is made before the first count, so /metrics lists the same series in the same
 * order, and a scrape, the worker aggregation and the OTLP producer read prom-client as
 * they always did.
 *
 * This reads the metric's `hashMap` (prom-client 15's store of series, one record per
 * label set, mutated in place by prom-client itself); `reset()` would replace it, and the
 * gateway never resets its metrics. A prom-client that keeps no such record leaves every
 * count to its own calls (slower, never wrong); test/telemetry/prepared-series.test.ts
 * fails on such an upgrade.
 */
import type { Counter, Histogram, LabelValues } from 'prom-client';

interface CounterRecord {
  value: number;
  readonly labels: object;
}

interface HistogramRecord {
  sum: number;
  count: number;
  readonly bucketValues: Record<string, number>;
  readonly labels: object;
}

/**
 * The record prom-client keeps for `labels`: the one whose labels object is that one;
 * null when none is (a prom-client that keeps its series otherwise), and the series then
 * counts through prom-client's own calls, as before.
 */
function recordOf<R extends { readonly labels: object }>(metric: object, labels: object): R | null {
  const store = (metric as { hashMap?: Record<string, R> }).hashMap;
  if (store === undefined || store === null || typeof store !== 'object') return null;
  for (const key in store) if (store[key]?.labels === labels) return store[key];
  return null;
}

/** A counter series of one label set, incremented by one. */
export class CounterSeries {
  /** prom-client's record of the series once it has one (null: not found, never looked for again). */
  private record: CounterRecord | null | undefined;

  constructor(
    private readonly counter: Counter<string>,
    private readonly labels: LabelValues<string>,
  ) {}

  inc(): void {
    const r = this.record;
    if (r) {
      r.value += 1;
      return;
    }
    this.counter.inc(this.labels);
    if (r === undefined) this.record = recordOf<CounterRecord>(this.counter, this.labels);
  }
}

/** A histogram series of one label set. */
export class HistogramSeries {
  /** prom-client's record of the series once it has one (null: not found, never looked for again). */
  private record: HistogramRecord | null | undefined;
  /** Each bound as prom-client names its bucket (a number spelled per observation showed in profiles). */
  private readonly keys: readonly string[];

  constructor(
    private readonly histogram: Histogram<string>,
    private readonly labels: LabelValues<string>,
    /** The metric's buckets, ascending, as it was created with. */
    private readonly bounds: readonly number[],
  ) {
    this.keys = bounds.map(String);
  }

  observe(value: number): void {
    const r = this.record;
    // A value prom-client refuses (NaN, ±Infinity) goes its way, and throws as it did.
    if (!r || !Number.isFinite(value)) {
      this.histogram.observe(this.labels, value);
      if (r === undefined) this.record = recordOf<HistogramRecord>(this.histogram, this.labels);
      return;
    }
    r.sum += value;
    r.count += 1;
    // As prom-client: the first bound the value is within; above the last, only +Inf
    // (count) has it.
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        r.bucketValues[this.keys[i]!]! += 1;
        return;
      }
    }
  }
}

type Level = Map<string | undefined, unknown>;

/**
 * The series of a histogram with four labels, found by their values (undefined: the label
 * is left out of the series) through nested maps: no key is composed, so no two label
 * sets can meet on one. `labelsOf` makes a series' labels once, on its first count.
 */
export class HistogramTable<
  A extends string | undefined,
  B extends string | undefined,
  C extends string | undefined,
  D extends string | undefined,
> {
  private readonly root: Level = new Map();

  constructor(
    private readonly histogram: Histogram<string>,
    private readonly bounds: readonly number[],
    private readonly labelsOf: (a: A, b: B, c: C, d: D) => LabelValues<string>,
  ) {}

  series(a: A, b: B, c: C, d: D): HistogramSeries {
    const l1 = level(this.root, a);
    const l2 = level(l1, b);
    const l3 = level(l2, c);
    let s = l3.get(d) as HistogramSeries | undefined;
    if (s === undefined)
      l3.set(d, (s = new HistogramSeries(this.histogram, this.labelsOf(a, b, c, d), this.bounds)));
    return s;
  }
}

function level(parent: Level, key: string | undefined): Level {
  let next = parent.get(key) as Level | undefined;
  if (next === undefined) parent.set(key, (next = new Map()));
  return next;
}
