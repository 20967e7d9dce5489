/**
 * One upstream exchange of an HTTP grant (outbound/exchange.ts sends it): a 2xx body
 * read within the read cap, the first bytes of any other status, and a body in an
 * encoding the gateway did not ask for left unread. Past a cap the request is aborted
 * (the connection is dropped), so an endless or huge body never grows memory
 * (security.md, "Upstream misbehaviour").
 */
import type { Dispatcher } from 'undici';
import type { Cancellation } from '../../../outbound/cancellation.js';
import { CappedBytes } from '../../../outbound/capped-bytes.js';
import {
  exchange as send,
  type Failed,
  type Reading,
  type ResponseReader,
  type Unsent,
} from '../../../outbound/exchange.js';

/** What one upstream exchange came to, its body read within the caps. */
export type Exchange =
  | Failed
  | Unsent
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

/** What a reader of this exchange settles with. */
type Read = Exclude<Exchange, Failed | Unsent>;

/** Bytes of a non-2xx body kept for the error excerpt. */
export const EXCERPT_BYTES = 2048;

/**
 * One request, its deadline covering the whole exchange, body included; the caller
 * going away aborts it too. `mayStart` is asked as the request is about to go on the
 * wire (outbound/exchange.ts).
 */
export function exchange(
  agent: Dispatcher,
  opts: Dispatcher.DispatchOptions,
  readCap: number,
  timeoutMs: number,
  cancel: Cancellation | undefined,
  mayStart?: () => boolean,
): Promise<Exchange> {
  return send(agent, opts, new BodyReader(readCap), { timeoutMs, cancel, mayStart });
}

class BodyReader implements ResponseReader<Read> {
  private status = 0;
  private contentType: string | undefined = undefined;
  private readonly body = new CappedBytes();

  constructor(private readonly readCap: number) {}

  start(status: number, header: (name: string) => string | undefined, x: Reading<Read>): void {
    this.status = status;
    if (status >= 300) {
      this.body.cap = EXCERPT_BYTES;
      return;
    }
    const encoding = header('content-encoding');
    if (encoding && encoding.toLowerCase() !== 'identity') {
      x.settle({ kind: 'encoded', encoding });
      x.stop();
      return;
    }
    this.contentType = header('content-type');
    this.body.cap = this.readCap;
  }

  data(chunk: Buffer, x: Reading<Read>): void {
    if (x.settled || this.body.add(chunk)) return;
    x.settle(this.read(true));
    x.stop();
  }

  end(x: Reading<Read>): void {
    x.settle(this.read(false));
  }

  /** A failure while reading a non-2xx body still reports the status, without excerpt. */
  error(): Read | undefined {
    return this.status >= 300
      ? { kind: 'status', status: this.status, excerpt: Buffer.alloc(0) }
      : undefined;
  }

  private read(overflow: boolean): Read {
    const { status, contentType } = this;
    const bytes = this.body.bytes();
    return status >= 300
      ? { kind: 'status', status, excerpt: bytes }
      : { kind: 'body', status, contentType, bytes, overflow };
  }
}
