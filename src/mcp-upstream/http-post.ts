/**
 * One JSON-RPC message POSTed to a Streamable HTTP upstream through the exchange the
 * HTTP backend uses too (outbound/exchange.ts): redirects are not followed, the deadline
 * covers the whole exchange, and the answer is read up to a byte cap, past which the
 * connection is dropped. An event-stream answer is parsed as it arrives and taken at
 * the event that answers our id; notifications before it are handed on.
 */
import type { Dispatcher } from 'undici';
import type { Cancellation } from '../outbound/cancellation.js';
import { CappedBytes } from '../outbound/capped-bytes.js';
import {
  exchange,
  type Failed,
  type Reading,
  type ResponseReader,
  type Unsent,
} from '../outbound/exchange.js';
import { SseEvents } from './sse-events.js';

export type PostAnswer =
  | Failed
  /** The deadline passed before the message went on the wire. */
  | Unsent
  /** The answer went on past the cap. */
  | { readonly kind: 'too-large'; readonly status: number }
  | {
      readonly kind: 'answer';
      readonly status: number;
      readonly contentType: string;
      readonly sessionId: string | undefined;
      /** A JSON body (or, for an event stream, the data of the event that answered us). */
      readonly text: string;
      /**
       * `text` already parsed, when reading it needed that (the event that answered us
       * was parsed to find it): the channel does not parse the same bytes twice.
       */
      readonly parsed?: unknown;
      /** The event stream ended without an answer to our id. */
      readonly unanswered?: boolean;
    };

export interface PostOptions {
  /** The upstream's origin and path (with its query), as undici takes them: made once a channel. */
  readonly origin: string;
  readonly path: string;
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
  return exchange(
    dispatcher,
    {
      origin: o.origin,
      path: o.path,
      method: 'POST',
      headers: o.headers,
      body: o.body,
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
    },
    new MessageReader(o),
    { timeoutMs: o.timeoutMs, cancel: o.cancel },
  );
}

/** What a reader of the POST settles with. */
type Read = Exclude<PostAnswer, Failed | Unsent>;

class MessageReader implements ResponseReader<Read> {
  private status = 0;
  private contentType = '';
  private sessionId: string | undefined = undefined;
  private sse: SseEvents | undefined = undefined;
  private readonly body = new CappedBytes();
  private grace: ReturnType<typeof setTimeout> | undefined = undefined;
  /** The response ended, failed, or was cut: nothing more to wait for. */
  private closed = false;

  constructor(private readonly o: PostOptions) {}

  start(status: number, header: (name: string) => string | undefined): void {
    this.status = status;
    this.contentType = (header('content-type') ?? '').toLowerCase();
    this.sessionId = header('mcp-session-id');
    const ok = status < 300;
    this.body.cap = ok ? this.o.readCap : STATUS_BODY_BYTES;
    if (ok && this.contentType.startsWith('text/event-stream')) this.sse = new SseEvents();
  }

  data(chunk: Buffer, x: Reading<Read>): void {
    if (x.settled) {
      // After the answer, the rest of the stream only counts toward the cap.
      if (!this.body.count(chunk.length) && !this.closed) {
        this.closed = true;
        clearTimeout(this.grace);
        x.stop();
      }
      return;
    }
    if (!(this.sse ? this.body.count(chunk.length) : this.body.add(chunk))) {
      // A long error page: what was read is enough to say what it was.
      if (this.status >= 300) x.settle(this.answer(this.text()));
      else x.settle({ kind: 'too-large', status: this.status });
      x.stop();
      return;
    }
    if (!this.sse) return;
    for (const data of this.sse.push(chunk)) {
      const message = parseOrUndefined(data);
      if (answers(message, this.o.id)) {
        x.settle(this.answer(data, undefined, message));
        // Our answer is in: let the stream end by itself, briefly, then cut it. Its end
        // mostly comes in the same read, which undici parses to the end before any
        // microtask runs: the timer is made only when the stream is still open then, so
        // most calls make none (a timer made and cleared per call showed in callgrind).
        queueMicrotask(() => this.linger(x));
        return;
      }
      // Not JSON (undefined): the answer we wait for may still come; the deadline bounds it.
      if (this.o.onOther && message !== undefined) this.o.onOther(message);
    }
  }

  end(x: Reading<Read>): void {
    this.closed = true;
    clearTimeout(this.grace);
    if (this.sse) x.settle(this.answer('', true));
    else x.settle(this.answer(this.text()));
  }

  error(): undefined {
    this.closed = true;
    clearTimeout(this.grace);
    return undefined;
  }

  /** After the answer: the stream may go on for the grace period, then it is cut. */
  private linger(x: Reading<Read>): void {
    if (this.closed) return;
    this.grace = setTimeout(() => {
      this.closed = true;
      x.stop();
    }, STREAM_END_GRACE_MS);
    this.grace.unref();
  }

  private text(): string {
    return this.body.bytes().toString('utf8');
  }

  private answer(text: string, unanswered?: boolean, parsed?: unknown): Read {
    return {
      kind: 'answer',
      status: this.status,
      contentType: this.contentType,
      sessionId: this.sessionId,
      text,
      ...(unanswered && { unanswered }),
      ...(parsed !== undefined && { parsed }),
    };
  }
}

/** An event's data as JSON, or undefined when it is not JSON (JSON has no undefined). */
function parseOrUndefined(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}

/** Whether an event's parsed data is the response to `id`. */
function answers(message: unknown, id: number | undefined): boolean {
  if (id === undefined || message === null || typeof message !== 'object') return false;
  const m = message as { id?: unknown; method?: unknown };
  return m.id === id && m.method === undefined;
}
