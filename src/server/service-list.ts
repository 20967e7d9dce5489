/**
 * The process-wide services of a running server (telemetry, the rate limiter, the stores
 * of confirmations and approvals): opened one after another at start, and closed
 * together, the last opened first, at shutdown or when start-up fails part way. Reloads
 * keep them: counts, pending approvals and spent states outlive a spec.
 */
export class ServiceList {
  private readonly closers: (() => Promise<void>)[] = [];

  /** Opens one more service; when it fails, those opened before it close, and it throws. */
  async open<T>(opening: () => Promise<T>, close: (service: T) => Promise<void>): Promise<T> {
    let service: T;
    try {
      service = await opening();
    } catch (err) {
      await this.close();
      throw err;
    }
    this.closers.push(() => close(service));
    return service;
  }

  /** Closes every service, the last opened first: telemetry flushes after the rest. */
  async close(): Promise<void> {
    for (let c = this.closers.pop(); c; c = this.closers.pop()) await c();
  }
}
