/**
 * Database failures as catalogue errors (security.md, "SQL grants"): constraint errors
 * name the SQLSTATE and the constraint, never the row data (pg's `detail` holds it and
 * is dropped); connection failures are 503 so callers retry elsewhere. A shaped grant's
 * errors (`quiet`) carry no text of Postgres' message either: a cast error or a raised
 * exception quotes the value it met, which may be a field the grant's pick/omit removes.
 */
import { engineError, type EngineError } from '../../error-catalogue.js';

interface PgError {
  code?: string;
  message?: string;
  constraint?: string;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
]);

export function sqlError(err: unknown, timeoutMs: number, quiet = false): EngineError {
  const e = (err ?? {}) as PgError;
  const code = typeof e.code === 'string' ? e.code : '';
  const constraint = e.constraint ? ` (constraint ${e.constraint})` : '';
  if (code === '57014')
    return engineError('SQL_TIMEOUT', `statement timed out after ${timeoutMs} ms`, {
      details: { sqlstate: code },
    });
  if (code === '23505' || code === '23503') {
    const what = code === '23505' ? 'a unique constraint' : 'a foreign-key constraint';
    return engineError(
      'SQL_CONFLICT',
      `the write conflicts with ${what}${constraint}; SQLSTATE ${code}`,
      { details: { sqlstate: code, ...(e.constraint && { constraint: e.constraint }) } },
    );
  }
  if (code.startsWith('23')) {
    return engineError(
      'SQL_CONSTRAINT',
      `the write violates a constraint${constraint}; SQLSTATE ${code}`,
      { details: { sqlstate: code, ...(e.constraint && { constraint: e.constraint }) } },
    );
  }
  if (code.startsWith('22'))
    return engineError(
      'SQL_DATA',
      `the database refused a value${quiet ? '' : `: ${e.message ?? 'data exception'}`}; SQLSTATE ${code}`,
      { details: { sqlstate: code } },
    );
  if (code === '25006') {
    return engineError(
      'SQL_ERROR',
      'this grant runs in a read-only transaction and its statement tried to write; SQLSTATE 25006',
      { details: { sqlstate: code } },
    );
  }
  if (CONNECTION_CODES.has(code) || code.startsWith('08') || isConnectionMessage(e.message)) {
    return engineError('DATABASE_UNAVAILABLE', 'the database is unavailable; retry shortly', {
      retryAfter: 1,
    });
  }
  return engineError(
    'SQL_ERROR',
    `the database refused the statement${quiet ? '' : `: ${e.message ?? 'unknown error'}`}${code ? `; SQLSTATE ${code}` : ''}`,
    { details: { sqlstate: code || null } },
  );
}

function isConnectionMessage(message: string | undefined): boolean {
  return (
    message !== undefined &&
    /Connection terminated|connection is closed|Client has encountered a connection error|terminating connection/i.test(
      message,
    )
  );
}
