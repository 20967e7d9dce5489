/**
 * A request refused at the edge, before any handler ran: a credential the access control
 * refused, an Origin or Host the guard does not allow. The hook that refuses raises it
 * into fastify (`done(err)`) rather than answering, so the hook need not know which
 * surface the request is for: the error handler of the route's own plugin frames it
 * (REST: the catalogue shape; MCP: JSON-RPC), the fallback handler any other route.
 */
import type { EngineError } from '../engine/error-catalogue.js';

export class RefusedRequest extends Error {
  constructor(
    readonly refusal: EngineError,
    /** The WWW-Authenticate the refusal carries (a refused credential's challenge). */
    readonly challenge?: string,
  ) {
    super(refusal.message);
    this.name = 'RefusedRequest';
  }
}
