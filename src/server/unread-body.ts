/**
 * An answer given before the request's body has arrived (413 on Content-Length, a body
 * over the limit part-read, 401 before the body is read, 415): the client is still
 * sending. Closing the socket then (fastify asks for the close after a body-parser
 * error) makes the gateway's kernel answer the bytes still coming with a reset, and a
 * reset drops the answer the client has not read yet: the caller saw ECONNRESET or EPIPE
 * instead of the 413 (issue 37). So the rest of the body is read and thrown away, and a
 * connection that must close is half-closed (the answer, then FIN) and closed only once
 * the body is in: a lingering close (RFC 9112, section 9.6). A kept-alive connection is
 * reused once the body is in. Bounded in bytes and time, so a hostile client cannot keep
 * the gateway reading: past either bound the socket is destroyed, the answer having had
 * that long to reach the client.
 */
import type { IncomingMessage } from 'node:http';

/** Bytes of an unread body discarded after the answer, at most. */
export const UNREAD_BODY_DRAIN_BYTES = 32 * 1024 * 1024;
/** How long the gateway keeps discarding an unread body after the answer, at most. */
export const UNREAD_BODY_DRAIN_MS = 10_000;

/** If `req`'s body is still on its way, discards the rest of it within the bounds. */
export function drainUnreadBody(req: IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  const socket = req.socket;
  let left = UNREAD_BODY_DRAIN_BYTES;
  let closing = false;
  const timer = setTimeout(() => socket.destroy(), UNREAD_BODY_DRAIN_MS);
  timer.unref();
  const stopTimer = (): void => clearTimeout(timer);
  socket.once('close', stopTimer);
  // Node calls this after an answer with Connection: close, to end and then destroy the
  // socket; here it only ends it (FIN after the answer), and reading goes on.
  socket.destroySoon = function lingeringClose(this: typeof socket) {
    closing = true;
    this.end();
  };
  // A body parser may have stopped listening mid-read: nothing else reads it now.
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) socket.destroy();
  });
  req.once('end', () => {
    clearTimeout(timer);
    // A kept-alive socket carries many requests (a bodyless GET ends here at once): one
    // listener left per request would pile up on it until it closes.
    socket.removeListener('close', stopTimer);
    if (!closing) {
      // Kept alive: the next request on it closes it as usual.
      delete (socket as { destroySoon?: unknown }).destroySoon;
      return;
    }
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  });
  req.resume();
}
