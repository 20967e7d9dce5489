/**
 * How the surfaces word a call that needs its user's yes from a request that cannot ask
 * (CONFIRMATION_UNAVAILABLE): the engine fills its refusal with the request scope's
 * wording. Only a 2026-07-28 MCP request can be asked, so both surfaces point there.
 */
import type { Unaskable } from '../engine/consent/questions.js';

/** REST, a 2025-era MCP request, and every read: nobody can be asked there. */
export const CANNOT_BE_ASKED: Unaskable = {
  reason: 'this request cannot be asked (2025-era MCP or REST)',
  remedy: 'from an MCP client of protocol 2026-07-28 declaring the elicitation capability',
};

/** A 2026-07-28 tools/call that did not declare the elicitation capability. */
export const UNDECLARED: Unaskable = {
  reason: 'the request does not declare the elicitation capability',
  remedy: 'when made again declaring the elicitation capability',
};
