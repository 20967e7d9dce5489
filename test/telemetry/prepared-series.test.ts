import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import {
  CounterSeries,
  HistogramSeries,
  HistogramTable,
} from '../../src/telemetry/prepared-series.js';

const BOUNDS = [0.005, 0.01, 0.25, 1];

/** The same metrics twice: one counted by prom-client's calls, one through prepared series. */
function pair() {
  const make = () => {
    const registry = new Registry();
    return {
      registry,
      counter: new Counter({
        name: 'c_total',
        help: 'c',
        labelNames: ['a', 'b'],
        registers: [registry],
      }),
      histogram: new Histogram({
        name: 'h',
        help: 'h',
        labelNames: ['a', 'b'],
        buckets: BOUNDS,
        registers: [registry],
      }),
    };
  };
  return { plain: make(), prepared: make() };
}

describe('prepared series', () => {
  it('/metrics reads the same as prom-client counting each observation itself', async () => {
    const { plain, prepared } = pair();
    const counters = new Map<string, CounterSeries>();
    const table = new HistogramTable(prepared.histogram, BOUNDS, (a: string, b?: string) =>
      b === undefined ? { a } : { a, b },
    );
    const values = [0, 0.004, 0.005, 0.0051, 0.3, 1, 1.5, 7, 0.01];
    let n = 0;
    for (const a of ['x', 'y']) {
      for (const b of [undefined, 'p', 'q']) {
        for (const v of values) {
          n += 1;
          const labels = b === undefined ? { a } : { a, b };
          plain.counter.inc(labels);
          plain.histogram.observe(labels, v * n);
          const key = `${a}/${b}`;
          let c = counters.get(key);
          if (!c) counters.set(key, (c = new CounterSeries(prepared.counter, labels)));
          c.inc();
          table.series(a, b, undefined, undefined).observe(v * n);
        }
      }
    }
    expect(await prepared.registry.metrics()).toBe(await plain.registry.metrics());
    expect(await prepared.registry.getMetricsAsJSON()).toEqual(
      await plain.registry.getMetricsAsJSON(),
    );
  });

  it("adds to prom-client's own record after the first count (fails if prom-client keeps series otherwise)", () => {
    const { prepared } = pair();
    const c = new CounterSeries(prepared.counter, { a: 'x' });
    const h = new HistogramSeries(prepared.histogram, { a: 'x' }, BOUNDS);
    c.inc();
    h.observe(0.5);
    expect((c as unknown as { record: unknown }).record).toBeTruthy();
    expect((h as unknown as { record: unknown }).record).toBeTruthy();
  });

  it('refuses a value prom-client refuses', () => {
    const { prepared } = pair();
    const h = new HistogramSeries(prepared.histogram, { a: 'x' }, BOUNDS);
    h.observe(1);
    expect(() => h.observe(Number.NaN)).toThrow(TypeError);
  });
});
