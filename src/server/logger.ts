/** Structured JSON logs (pino) with credentials redacted wherever they could appear. */
import { pino, type Logger } from 'pino';
import type { Redactor } from '../engine/redact.js';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'authorization',
  'token',
  'apiKey',
];

/** Each logger's line redaction, set when the gateway (and so its secrets) is known. */
const lineRedactors = new WeakMap<Logger, { current: Redactor | undefined }>();

/**
 * `bindings` go on every line (a worker of `serve --workers` names itself). They are not
 * set with logger.child(): a child is not the logger redactLogLines knows.
 */
export function createLogger(
  level: string,
  destination?: NodeJS.WritableStream,
  bindings: Record<string, string | number> = {},
): Logger {
  const slot: { current: Redactor | undefined } = { current: undefined };
  const logger = pino(
    {
      level,
      base: { service: 'mcp-beaver', ...bindings },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      // Paths catch the fields we know; every finished line is also searched for every
      // spelling of every secret (an error's message or stack may quote anything).
      hooks: { streamWrite: (line) => (slot.current ? slot.current.text(line) : line) },
    },
    destination ?? process.stdout,
  );
  lineRedactors.set(logger, slot);
  return logger;
}

/**
 * Redacts every line `logger` (and its children) writes from now on with `redact`.
 * A logger not made by createLogger is left as it is.
 */
export function redactLogLines(logger: Logger, redact: Redactor): void {
  const slot = lineRedactors.get(logger);
  if (slot) slot.current = redact;
}
