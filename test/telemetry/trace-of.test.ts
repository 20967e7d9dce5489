/**
 * The trace a call continues (projection/trace-context.ts): with a recording span the
 * call takes the span's trace id as the span holds it (issue 40: no traceparent built and
 * parsed back), and what it sends upstream is that trace with a span id of its own,
 * sampled; without one, the caller's traceparent is continued as before.
 */
import { resourceFromAttributes } from '@opentelemetry/resources';
import { describe, expect, it } from 'vitest';
import { continueTrace, traceOf } from '../../src/projection/trace-context.js';
import { NO_SPAN } from '../../src/telemetry/span.js';
import { SpanRecorder } from '../../src/telemetry/span-recorder.js';

const CALLER = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

const recorder = new SpanRecorder({
  sampler: { root: 'always_on', parentBased: true, ratio: 1 },
  resource: resourceFromAttributes({ 'service.name': 'test' }),
  scope: 'mcp-beaver',
  ended: { onEnd() {} },
});

describe('the trace a call continues', () => {
  it('is a recording span’s own trace, with a new span id, as parsing its traceparent gave', () => {
    const span = recorder.serverSpan({ traceparent: CALLER }, 'tools/call get_item');
    const trace = traceOf(span, 'ignored: the span is the parent');
    const parsed = continueTrace(span.traceparent());
    expect(trace.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(trace.traceId).toBe(parsed.traceId);
    expect(trace.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(trace.traceparent).not.toBe(span.traceparent());
  });

  it('is a new trace’s when the caller sent no parent, the span’s trace id again', () => {
    const span = recorder.serverSpan({}, 'tools/call get_item');
    expect(traceOf(span, undefined).traceId).toBe(span.traceId);
  });

  it('is the caller’s traceparent when nothing records', () => {
    const trace = traceOf(NO_SPAN, CALLER);
    expect(trace.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(trace.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
  });
});
