/** One upstream HTTP exchange through undici's dispatch API, its body read within the caps. */
import { errors as undiciErrors, type Agent, type Dispatcher } from 'undici';
import type { Cancellation } from '../../call-context.js';

/** What one upstream exchange came to, its body read within the caps. */
export type Exchange =
  | { readonly kind: 'failed'; readonly err: unknown; readonly timedOut: boolean }
  /**
   * The request never went on the wire: its deadline passed before a connection carried
   * it, or `mayStart` said it could no longer finish in time. The upstream saw nothing.
   */
  | { readonly kind: 'unsent' }
  /** A status outside 2xx, with the first bytes of its body (none if reading it failed). */
  | { readonly kind: 'status'; readonly status: number; readonly excerpt: Buffer }
  /** A 2xx body in an encoding other than identity; nothing of it was read. */
  | { readonly kind: 'encoded'; readonly encoding: string }
  | {
      readonly kind: 'body';
      readonly status: number;
      readonly contentType: string | undefined;
      readonly bytes: Buffer;
      /** The body went on past the read cap; `bytes` holds the first `readCap` bytes. */
      readonly overflow: boolean;
    };

/** Bytes of a non-2xx body kept for the error excerpt. */
export const EXCERPT_BYTES = 2048;

/**
 * One request through undici's dispatch API, its body collected straight from the
 * parser: no response stream, no async iterator and no AbortController or event listener per call (each
 * showed in profiles). The deadline covers the whole exchange, body included; the
 * caller going away aborts it too. Past a cap the request is aborted (the connection
 * is dropped), so an endless or huge body never grows memory (security.md, "Upstream
 * misbehaviour").
 *
 * `mayStart` is asked at the moment undici is about to write the request: on a busy
 * event loop that can be seconds after the call got its connection slot (the socket
 * still connecting, the loop taking a burst of requests), and a request that can no
 * longer be answered within its deadline is then not sent at all (docs/reliability.md,
 * "Admission at the upstream"). The deadline's timer, when it fires, yields to the I/O
 * already waiting (setImmediate runs after the poll phase): on a stalled loop the
 * expired timer runs before the answer that arrived in time would have been read.
 */
export function exchange(
  agent: Agent,
  opts: Dispatcher.DispatchOptions,
  readCap: number,
  timeoutMs: number,
  cancel: Cancellation | undefined,
  mayStart?: () => boolean,
): Promise<Exchange> {
  return new Promise<Exchange>((resolve) => {
    let controller: Dispatcher.DispatchController | undefined;
    /** Set when the deadline or the caller ended the call before undici started it. */
    let abortPending = false;
    let settled = false;
    let timedOut = false;
    let status = 0;
    let contentType: string | undefined;
    let cap = 0;
    const chunks: Buffer[] = [];
    let total = 0;

    const abort = (): void => {
      if (controller) controller.abort(new undiciErrors.RequestAbortedError());
      else abortPending = true;
    };
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (settled) return;
        timedOut = true;
        if (controller) abort();
        else settle({ kind: 'unsent' });
      });
    }, timeoutMs);
    const settle = (result: Exchange): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      cancel?.onCancel(undefined);
      resolve(result);
    };
    /** Ends the request after the handler returns (never from inside undici's parser). */
    const stop = (c: Dispatcher.DispatchController): void => {
      c.pause();
      queueMicrotask(() => c.abort(new undiciErrors.RequestAbortedError()));
    };
    const collected = (): Buffer =>
      chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);

    if (cancel?.cancelled) abortPending = true;
    else cancel?.onCancel(abort);

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        // Not sending: thrown here, before a byte is written, undici drops the request
        // and keeps the connection for the next one (abort() would close it, and a new
        // one costs a connect on the same busy loop).
        if (settled || abortPending) throw new undiciErrors.RequestAbortedError();
        if (mayStart && !mayStart()) {
          settle({ kind: 'unsent' });
          throw new undiciErrors.RequestAbortedError();
        }
      },
      onResponseStart(c, statusCode, headers) {
        if (statusCode < 200) return; // informational; the answer follows
        status = statusCode;
        if (statusCode >= 300) {
          cap = EXCERPT_BYTES;
          return;
        }
        const encoding = headerText(headers['content-encoding']);
        if (encoding && encoding.toLowerCase() !== 'identity') {
          settle({ kind: 'encoded', encoding });
          stop(c);
          return;
        }
        contentType = headerText(headers['content-type']);
        cap = readCap;
      },
      onResponseData(c, chunk) {
        if (settled) return;
        if (total + chunk.length > cap) {
          chunks.push(chunk.subarray(0, cap - total));
          total = cap;
          settle(
            status >= 300
              ? { kind: 'status', status, excerpt: collected() }
              : { kind: 'body', status, contentType, bytes: collected(), overflow: true },
          );
          stop(c);
          return;
        }
        chunks.push(chunk);
        total += chunk.length;
      },
      onResponseEnd() {
        settle(
          status >= 300
            ? { kind: 'status', status, excerpt: collected() }
            : { kind: 'body', status, contentType, bytes: collected(), overflow: false },
        );
      },
      onResponseError(_c, err) {
        // A failure while reading a non-2xx body still reports the status, without excerpt.
        settle(
          status >= 300
            ? { kind: 'status', status, excerpt: Buffer.alloc(0) }
            : { kind: 'failed', err, timedOut },
        );
      },
    };
    try {
      agent.dispatch(opts, handler);
    } catch (err) {
      settle({ kind: 'failed', err, timedOut });
    }
  });
}

export function headerText(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
