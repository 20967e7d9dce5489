/**
 * Node's own refusals, before fastify sees a request (`clientError`): a malformed request
 * line, header or chunk framing (400), headers over the size limit (431), the header or
 * request timeout (408). Answered in the catalogue's shape, then the socket is closed.
 */
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import type { ErrorCode } from '../engine/error-catalogue.js';
import { engineError } from '../engine/error-catalogue.js';
import { restError } from '../projection/rest/rest-error.js';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

function refusalOf(code: string | undefined): { code: ErrorCode; message: string } {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'REQUEST_TIMEOUT', message: 'the request did not arrive in time' };
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'HEADERS_TOO_LARGE', message: 'the request headers are too large' };
    default:
      return { code: 'MALFORMED_REQUEST', message: 'the HTTP request could not be read' };
  }
}

export function answerClientError(
  err: Error & { code?: string },
  socket: Socket,
  log: FastifyBaseLogger,
): void {
  // A reset or closed connection has no one to answer; a request cut short is logged
  // once, by the request's own error path.
  if (err.code === 'ECONNRESET' || err.code === 'HPE_INVALID_EOF_STATE' || socket.destroyed) {
    socket.destroy();
    return;
  }
  const refusal = refusalOf(err.code);
  // The peer's doing, not ours: no stack, and below info (a scanner can send many).
  log.debug({ code: err.code, refused: refusal.code }, 'connection refused by the HTTP parser');
  // A response already under way on this socket cannot be followed by another.
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !pending?.headersSent) {
    const r = restError(engineError(refusal.code, refusal.message));
    const status = r.status;
    const body = Buffer.from(r.body, 'utf8');
    socket.write(
      `HTTP/1.1 ${status} ${REASONS[status] ?? 'Bad Request'}\r\n` +
        `content-type: ${r.headers['content-type']}\r\n` +
        `content-length: ${body.length}\r\n` +
        'connection: close\r\n\r\n',
    );
    socket.write(body);
  }
  socket.destroy();
}
