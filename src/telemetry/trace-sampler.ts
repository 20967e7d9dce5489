/**
 * Whether a span is sampled, by OTEL_TRACES_SAMPLER (telemetry-config.ts), decided as the
 * SDK's samplers decide it (AlwaysOn, AlwaysOff, TraceIdRatioBased, ParentBased with its
 * default delegates), for span-recorder.ts: a pure function of the configuration, the
 * parent's context and the trace id.
 */
import type { SamplerConfig } from './telemetry-config.js';

/** What the decision reads of a parent: whether it was sampled. */
export interface SampledParent {
  readonly traceFlags: number;
}

const SAMPLED = 1;

export function sampled(
  config: SamplerConfig,
  parent: SampledParent | undefined,
  traceId: string,
): boolean {
  // parentbased_*: a parent, remote or ours, is followed, sampled or not.
  if (config.parentBased && parent !== undefined) return (parent.traceFlags & SAMPLED) !== 0;
  switch (config.root) {
    case 'always_on':
      return true;
    case 'always_off':
      return false;
    case 'traceidratio':
      return traceIdRatio(config.ratio, traceId);
  }
}

/**
 * The SDK's TraceIdRatioBased decision: the trace id's four 32-bit words XORed, below
 * ratio × 2^32 − 1. Deterministic in the trace id, so every service with the same ratio
 * keeps the same traces.
 */
export function traceIdRatio(ratio: number, traceId: string): boolean {
  const bound = ratio >= 1 ? 0x100000000 : ratio <= 0 ? 0 : Math.floor(ratio * 0xffffffff);
  let accumulation = 0;
  for (let i = 0; i < 32; i += 8) {
    let word = 0;
    for (let j = 0; j < 8; j++) {
      const c = traceId.charCodeAt(i + j);
      word = (word << 4) | (c < 58 ? c - 48 : c < 71 ? c - 55 : c - 87);
    }
    accumulation = (accumulation ^ word) >>> 0;
  }
  return accumulation < bound;
}
