/**
 * One JSON-RPC message POSTed to a Streamable HTTP upstream through undici's dispatch
 * API (as the HTTP backend does, http/exchange.ts): redirects are not followed (dispatch
 * never does), the deadline covers the whole exchange, and the answer is read up to a
 * byte cap, past which the connection is dropped. An event-stream answer is parsed as
 * it arrives and taken at the event that answers our id; notifications before it are
 * handed on.
 */
import { errors as undiciErrors, type Dispatcher } from 'undici';
import type { Cancellation } from '../../call-context.js';
import { SseEvents } from './sse-events.js';

export type PostAnswer =
  | { readonly kind: 'failed'; readonly err: unknown; readonly timedOut: boolean }
  /** The answer went on past the cap. */
  | { readonly kind: 'too-large'; readonly status: number }
  | {
      readonly kind: 'answer';
      readonly status: number;
      readonly contentType: string;
      readonly sessionId: string | undefined;
      /** A JSON body (or, for an event stream, the data of the event that answered us). */
      readonly text: string;
      /** The event stream ended without an answer to our id. */
      readonly unanswered?: boolean;
    };

export interface PostOptions {
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** The JSON-RPC id whose answer is awaited (undefined for a notification). */
  readonly id: number | undefined;
  readonly readCap: number;
  readonly timeoutMs: number;
  readonly cancel?: Cancellation | undefined;
  /** A message of the stream that is not our answer (a notification, say). */
  readonly onOther?: (value: unknown) => void;
}

/** Bytes of a non-2xx body kept (a JSON-RPC error, or an excerpt for the message). */
const STATUS_BODY_BYTES = 16 * 1024;

/**
 * How long an event stream may go on after the event that answered us. Servers end the
 * stream right after the answer; letting it end keeps the keep-alive connection for the
 * next call (aborting it cost a new TCP connection per call: 0.39x the direct rate in
 * `npm run bench`, section 9). A stream left open is cut after this.
 */
const STREAM_END_GRACE_MS = 250;

export function postMessage(dispatcher: Dispatcher, o: PostOptions): Promise<PostAnswer> {
  return new Promise<PostAnswer>((resolve) => {
    let controller: Dispatcher.DispatchController | undefined;
    let abortPending = false;
    let settled = false;
    let timedOut = false;
    let status = 0;
    let contentType = '';
    let sessionId: string | undefined;
    let cap = 0;
    let sse: SseEvents | undefined;
    const chunks: Buffer[] = [];
    let total = 0;
    let grace: ReturnType<typeof setTimeout> | undefined;

    const abort = (): void => {
      if (controller) controller.abort(new undiciErrors.RequestAbortedError());
      else abortPending = true;
    };
    const timer = setTimeout(() => {
      timedOut = true;
      abort();
    }, o.timeoutMs);
    const settle = (a: PostAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.cancel?.onCancel(undefined);
      resolve(a);
    };
    /** Ends the request after the handler returns (never from inside undici's parser). */
    const stop = (c: Dispatcher.DispatchController): void => {
      c.pause();
      queueMicrotask(() => c.abort(new undiciErrors.RequestAbortedError()));
    };
    /** Our answer is in: let the stream end by itself, briefly, then cut it. */
    const awaitStreamEnd = (c: Dispatcher.DispatchController): void => {
      grace = setTimeout(() => stop(c), STREAM_END_GRACE_MS);
      grace.unref();
    };
    const answer = (text: string, unanswered?: boolean): PostAnswer => ({
      kind: 'answer',
      status,
      contentType,
      sessionId,
      text,
      ...(unanswered && { unanswered }),
    });

    if (o.cancel?.cancelled) abortPending = true;
    else o.cancel?.onCancel(abort);

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (abortPending) c.abort(new undiciErrors.RequestAbortedError());
      },
      onResponseStart(_c, statusCode, headers) {
        if (statusCode < 200) return; // informational; the answer follows
        status = statusCode;
        contentType = (headerText(headers['content-type']) ?? '').toLowerCase();
        sessionId = headerText(headers['mcp-session-id']);
        const ok = statusCode < 300;
        cap = ok ? o.readCap : STATUS_BODY_BYTES;
        if (ok && contentType.startsWith('text/event-stream')) sse = new SseEvents();
      },
      onResponseData(c, chunk) {
        if (settled) {
          // After the answer, the rest of the stream only counts toward the cap.
          total += chunk.length;
          if (total > cap && grace !== undefined) {
            clearTimeout(grace);
            grace = undefined;
            stop(c);
          }
          return;
        }
        if (total + chunk.length > cap) {
          if (status >= 300) {
            // A long error page: what was read is enough to say what it was.
            chunks.push(chunk.subarray(0, cap - total));
            total = cap;
            settle(answer(Buffer.concat(chunks, total).toString('utf8')));
          } else settle({ kind: 'too-large', status });
          stop(c);
          return;
        }
        total += chunk.length;
        if (!sse) {
          chunks.push(chunk);
          return;
        }
        for (const data of sse.push(chunk)) {
          if (answers(data, o.id)) {
            settle(answer(data));
            awaitStreamEnd(c);
            return;
          }
          if (o.onOther) {
            try {
              o.onOther(JSON.parse(data) as unknown);
            } catch {
              // Not JSON: the answer we wait for may still come; the deadline bounds it.
            }
          }
        }
      },
      onResponseEnd() {
        clearTimeout(grace);
        if (sse) settle(answer('', true));
        else settle(answer(Buffer.concat(chunks, total).toString('utf8')));
      },
      onResponseError(_c, err) {
        clearTimeout(grace);
        settle({ kind: 'failed', err, timedOut });
      },
    };
    try {
      dispatcher.dispatch(
        {
          origin: o.url.origin,
          path: `${o.url.pathname}${o.url.search}`,
          method: 'POST',
          headers: o.headers,
          body: o.body,
          headersTimeout: o.timeoutMs,
          bodyTimeout: o.timeoutMs,
        },
        handler,
      );
    } catch (err) {
      settle({ kind: 'failed', err, timedOut });
    }
  });
}

/** Whether an event's data is the response to `id` (cheaply: most events are). */
function answers(data: string, id: number | undefined): boolean {
  if (id === undefined) return false;
  try {
    const m = JSON.parse(data) as { id?: unknown; method?: unknown };
    return m !== null && typeof m === 'object' && m.id === id && m.method === undefined;
  } catch {
    return false;
  }
}

function headerText(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
