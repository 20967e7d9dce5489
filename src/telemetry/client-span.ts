/**
 * What a backend needs to make the spans of its upstream work (docs/observability.md,
 * "Spans"): a grant's client span, named and attributed once (on the first call that
 * records, so a gateway with telemetry off builds neither), and an INTERNAL span around a
 * wait that really waits.
 */
import type { Attributes, Span } from './span.js';

/** An INTERNAL span's name for a call waiting for an upstream connection. */
export const CONNECTION_WAIT = 'mcp_beaver.wait.connection';

export class ClientSpans {
  private name: string | undefined = undefined;
  private attributes: Attributes | undefined = undefined;

  constructor(
    private readonly nameOf: () => string,
    private readonly attributesOf: () => Attributes,
  ) {}

  /** A CLIENT child of `parent`, started now. */
  start(parent: Span): Span {
    this.name ??= this.nameOf();
    this.attributes ??= this.attributesOf();
    return parent.child(this.name, 'client', this.attributes);
  }
}

/** `wait` under an INTERNAL child of `parent`, ended when it settles. Call it only when recording. */
export async function traceWait<T>(parent: Span, name: string, wait: Promise<T>): Promise<T> {
  const span = parent.child(name, 'internal');
  try {
    return await wait;
  } finally {
    span.end();
  }
}
