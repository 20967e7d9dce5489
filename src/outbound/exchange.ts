/**
 * One upstream HTTP request through undici's dispatch API, for all that speaks HTTP
 * upstream: the http kind's exchange (engine/backends/http/http-exchange.ts) and the MCP
 * client's POST of a JSON-RPC message (mcp-upstream/http-post.ts). This part holds what
 * they share: the deadline over the whole exchange, the caller going away, a request that
 * can no longer go out in time, and ending the request from a reader. What the response means is the
 * reader's: it is told the final status and each chunk, and settles the exchange.
 *
 * No response stream, no async iterator and no AbortController or event listener per
 * call (each showed in profiles): the body is handed over straight from the parser.
 * Redirects are not followed (dispatch never does).
 */
import { errors as undiciErrors, type Dispatcher } from './undici.js';
import type { Cancellation } from './cancellation.js';

/** How the gateway names itself to every upstream it calls over HTTP. */
export const USER_AGENT = 'mcp-beaver/0.1';

/**
 * The request never went on the wire: its deadline passed before a connection carried
 * it, or `mayStart` said it could no longer finish in time. The upstream saw nothing.
 */
export interface Unsent {
  readonly kind: 'unsent';
}

/** The request failed before a reader settled it (connection refused, reset, timed out). */
export interface Failed {
  readonly kind: 'failed';
  readonly err: unknown;
  readonly timedOut: boolean;
}

/** What a reader may do to the exchange it reads. */
export interface Reading<T> {
  /** Whether the exchange has its result (a reader may read on past it). */
  readonly settled: boolean;
  /** The exchange's result; the first one counts. */
  settle(result: T): void;
  /**
   * Ends the request after the current handler returns (never from inside undici's
   * parser): the connection is dropped, so an endless or huge body never grows memory
   * (security.md, "Upstream misbehaviour").
   */
  stop(): void;
}

/** How one kind reads the response: told its final status and each chunk, it settles. */
export interface ResponseReader<T> {
  /** A final status (200 and up; an informational one is passed over) and its headers, each by name. */
  start(status: number, header: (name: string) => string | undefined, x: Reading<T>): void;
  data(chunk: Buffer, x: Reading<T>): void;
  end(x: Reading<T>): void;
  /** The response failed after it started: what to answer instead of `failed`, if anything. */
  error?(err: unknown): T | undefined;
}

export interface ExchangeOptions {
  /** The deadline of the whole exchange, body included. */
  readonly timeoutMs: number;
  /** The caller going away aborts the exchange too. */
  readonly cancel?: Cancellation | undefined;
  /**
   * Asked at the moment undici is about to write the request: on a busy event loop that
   * can be seconds after the call got its connection slot (the socket still connecting,
   * the loop taking a burst of requests), and a request that can no longer be answered
   * within its deadline is then not sent at all (docs/reliability.md, "Admission at the
   * upstream").
   */
  readonly mayStart?: (() => boolean) | undefined;
}

/**
 * Sends `request` and hands its response to `reader`. The deadline's timer, when it
 * fires, yields to the I/O already waiting (setImmediate runs after the poll phase): on
 * a stalled loop the expired timer runs before the answer that arrived in time would
 * have been read.
 */
export function exchange<T>(
  dispatcher: Dispatcher,
  request: Dispatcher.DispatchOptions,
  reader: ResponseReader<T>,
  o: ExchangeOptions,
): Promise<T | Failed | Unsent> {
  return new Promise((resolve) => {
    const x = new Exchanging(reader, o, resolve);
    try {
      dispatcher.dispatch(request, x);
    } catch (err) {
      x.settle({ kind: 'failed', err, timedOut: false });
    }
  });
}

/**
 * undici's own handler interface (onConnect … onComplete), the one its dispatchers call:
 * a handler with the newer onRequestStart … onResponseEnd methods is wrapped per request
 * in an adapter and a controller, and its response headers parsed into an object, of
 * which a reader wants one or two. Here they are looked up in the raw list instead.
 */
class Exchanging<T> implements Dispatcher.DispatchHandler, Reading<T | Failed | Unsent> {
  private abortRequest: ((err?: Error) => void) | undefined = undefined;
  /** Set by stop(): undici is told to pause, and the request is aborted after the handler returns. */
  private paused = false;
  private aborted = false;
  /** Set when the deadline or the caller ended the call before undici started it. */
  private abortPending = false;
  private done = false;
  private timedOut = false;
  private readonly timer: ReturnType<typeof setTimeout>;

  constructor(
    private readonly reader: ResponseReader<T>,
    private readonly o: ExchangeOptions,
    private readonly resolve: (result: T | Failed | Unsent) => void,
  ) {
    this.timer = setTimeout(() => setImmediate(() => this.deadline()), o.timeoutMs);
    if (o.cancel?.cancelled) this.abortPending = true;
    else o.cancel?.onCancel(() => this.abort());
  }

  get settled(): boolean {
    return this.done;
  }

  settle(result: T | Failed | Unsent): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.o.cancel?.onCancel(undefined);
    this.resolve(result);
  }

  stop(): void {
    if (!this.abortRequest) return;
    this.paused = true;
    queueMicrotask(() => this.abort());
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortRequest = abort;
    // Not sending: thrown here, before a byte is written, undici drops the request and
    // keeps the connection for the next one (abort() would close it, and a new one costs
    // a connect on the same busy loop).
    if (this.done || this.abortPending) throw new undiciErrors.RequestAbortedError();
    if (this.o.mayStart && !this.o.mayStart()) {
      this.settle({ kind: 'unsent' });
      throw new undiciErrors.RequestAbortedError();
    }
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode < 200) return true; // informational; the answer follows
    this.reader.start(statusCode, (name) => rawHeader(rawHeaders, name), this as Reading<T>);
    return !this.paused;
  }

  onData(chunk: Buffer): boolean {
    this.reader.data(chunk, this as Reading<T>);
    return !this.paused;
  }

  onComplete(): void {
    this.reader.end(this as Reading<T>);
  }

  onError(err: Error): void {
    this.settle(this.reader.error?.(err) ?? { kind: 'failed', err, timedOut: this.timedOut });
  }

  private abort(): void {
    if (this.aborted) return;
    if (this.abortRequest) {
      this.aborted = true;
      this.abortRequest(new undiciErrors.RequestAbortedError());
    } else this.abortPending = true;
  }

  private deadline(): void {
    if (this.done) return;
    this.timedOut = true;
    if (this.abortRequest) this.abort();
    else this.settle({ kind: 'unsent' });
  }
}

/**
 * The first value of a response header, by its lower-case name, from undici's raw list
 * (name, value, name, value …; latin1, as undici decodes them).
 */
function rawHeader(raw: Buffer[], name: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i]!;
    if (key.length === name.length && key.toString('latin1').toLowerCase() === name)
      return raw[i + 1]!.toString('latin1');
  }
  return undefined;
}
