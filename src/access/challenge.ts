/**
 * The WWW-Authenticate an answer carries, chosen by its catalogue row (`challenge`), so
 * neither surface names a code to decide it: a refused credential's challenge tells
 * where to get a token; a missing scope's names every scope the grant needs.
 */
import type { FastifyRequest } from 'fastify';
import {
  ERROR_CATALOGUE,
  requiredScopes,
  type CatalogueEntry,
  type EngineError,
} from '../engine/error-catalogue.js';
import type { AccessControl } from './access-control.js';
import type { Refusal } from './authenticate.js';

export function challengeOf(
  access: AccessControl,
  req: FastifyRequest,
  e: EngineError,
  refusal?: Refusal,
): string | undefined {
  const entry: CatalogueEntry = ERROR_CATALOGUE[e.code];
  switch (entry.challenge) {
    case 'credentials':
      // The credential check wrote it, with the RFC 6750 error it found.
      return refusal?.challenge;
    case 'scopes':
      return access.scopeChallenge(req, requiredScopes(e));
    default:
      return undefined;
  }
}
