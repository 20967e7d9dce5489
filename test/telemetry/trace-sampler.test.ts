/**
 * Our sampling decision (trace-sampler.ts) against the SDK's samplers it stands in for:
 * the same decision for every configuration OTEL_TRACES_SAMPLER can name, for random
 * trace ids, with no parent, a remote or local parent sampled or not.
 */
import { ROOT_CONTEXT, SamplingDecision, SpanKind, trace, type Context } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sampled } from '../../src/telemetry/trace-sampler.js';
import type { SamplerConfig } from '../../src/telemetry/telemetry-config.js';

function sdkSampler(c: SamplerConfig): Sampler {
  const root =
    c.root === 'always_off'
      ? new AlwaysOffSampler()
      : c.root === 'traceidratio'
        ? new TraceIdRatioBasedSampler(c.ratio)
        : new AlwaysOnSampler();
  return c.parentBased ? new ParentBasedSampler({ root }) : root;
}

const CONFIGS: SamplerConfig[] = [
  { root: 'always_on', parentBased: false, ratio: 1 },
  { root: 'always_off', parentBased: false, ratio: 1 },
  { root: 'traceidratio', parentBased: false, ratio: 0.3 },
  { root: 'always_on', parentBased: true, ratio: 1 },
  { root: 'always_off', parentBased: true, ratio: 1 },
  { root: 'traceidratio', parentBased: true, ratio: 0.3 },
  { root: 'traceidratio', parentBased: true, ratio: 0 },
  { root: 'traceidratio', parentBased: false, ratio: 1 },
];

const PARENTS: { label: string; flags?: number; isRemote?: boolean }[] = [
  { label: 'no parent' },
  { label: 'a sampled remote parent', flags: 1, isRemote: true },
  { label: 'an unsampled remote parent', flags: 0, isRemote: true },
  { label: 'a sampled local parent', flags: 1, isRemote: false },
  { label: 'an unsampled local parent', flags: 0, isRemote: false },
];

describe.each(CONFIGS)('sampler %o', (config) => {
  it.each(PARENTS)('decides as the SDK does with $label', ({ flags, isRemote }) => {
    const sdk = sdkSampler(config);
    let kept = 0;
    for (let i = 0; i < 400; i++) {
      const traceId = randomBytes(16).toString('hex');
      const parent =
        flags === undefined
          ? undefined
          : { traceId, spanId: randomBytes(8).toString('hex'), traceFlags: flags, isRemote };
      const context: Context = parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
      const want =
        sdk.shouldSample(context, traceId, 'x', SpanKind.SERVER, {}, []).decision ===
        SamplingDecision.RECORD_AND_SAMPLED;
      const got = sampled(config, parent, traceId);
      expect(got).toBe(want);
      if (got) kept++;
    }
    // The ratio sampler keeps some and drops some of 400 random traces.
    if (config.root === 'traceidratio' && config.ratio === 0.3 && flags === undefined)
      expect(kept > 40 && kept < 200).toBe(true);
  });
});
