/**
 * The prom-client instruments of one registry, never the process-wide default one: each
 * server registers its own, so several servers in one process (tests) share no series.
 */
import { Counter, Gauge, Histogram, type Aggregator, type Registry } from 'prom-client';

export interface Instruments {
  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L>;
  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: readonly number[],
  ): Histogram<L>;
  /**
   * `aggregator`: how `serve --workers` sums this gauge over its workers (default sum;
   * a state such as the spec's generation is the same in each, so max or min).
   */
  gauge(name: string, help: string, aggregator?: Aggregator): Gauge;
}

export function instrumentsOf(registry: Registry): Instruments {
  const registers = [registry];
  return {
    counter: (name, help, labelNames) => new Counter({ name, help, labelNames, registers }),
    histogram: (name, help, labelNames, buckets) =>
      new Histogram({ name, help, labelNames, buckets: [...buckets], registers }),
    gauge: (name, help, aggregator = 'sum') => new Gauge({ name, help, registers, aggregator }),
  };
}
