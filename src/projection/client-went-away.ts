/** What every surface's error handler asks first: is anyone left to answer? */
import type { FastifyError, FastifyRequest } from 'fastify';

/**
 * The caller went away mid-upload: nobody is left to answer, and it is no fault of ours
 * (logged at info, and the error answered with nothing).
 */
export function clientWentAway(err: FastifyError, req: FastifyRequest): boolean {
  if (!req.raw.aborted && !(err.code === 'ECONNRESET' && req.raw.destroyed)) return false;
  req.log.info({ code: err.code }, 'client closed the connection before its body arrived');
  return true;
}
