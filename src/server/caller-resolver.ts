/**
 * Who is calling, from the request. Without an `access` block everyone is the
 * anonymous caller holding every scope; inbound authentication replaces this.
 */
import type { FastifyRequest } from 'fastify';
import { ANONYMOUS, type Caller } from '../engine/caller.js';
import type { EngineError } from '../engine/error-catalogue.js';

export type CallerResult =
  | { readonly ok: true; readonly caller: Caller }
  | { readonly ok: false; readonly error: EngineError };
export type CallerResolver = (req: FastifyRequest) => CallerResult | Promise<CallerResult>;

export const anonymousCaller: CallerResolver = () => ({ ok: true, caller: ANONYMOUS });
