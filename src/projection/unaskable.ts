/**
 * How the surfaces word a call that needs its user's yes from a request that cannot ask
 * (CONFIRMATION_UNAVAILABLE): the engine fills its refusal with the request scope's
 * wording. An MCP client that declares form elicitation can be asked in either era (in
 * 2026-07-28 on the request, in the 2025 era in `initialize`), so the wording points there.
 */
import type { Unaskable } from '../engine/consent/questions.js';

/** What would work, said the same way everywhere. */
const DECLARING =
  'from an MCP client that declares form elicitation: a 2025-era client when it initializes (keeping the Mcp-Session-Id it gets and accepting text/event-stream) or a 2026-07-28 client declaring the elicitation capability on the request';

/** REST, a 2025-era MCP request without a session that declared elicitation, and every read. */
export const CANNOT_BE_ASKED: Unaskable = {
  reason:
    'this request cannot be asked (REST, a read, or a 2025-era MCP client that did not declare elicitation when it initialized)',
  remedy: DECLARING,
};

/** A 2026-07-28 tools/call that did not declare the elicitation capability. */
export const UNDECLARED: Unaskable = {
  reason: 'the request does not declare the elicitation capability',
  remedy: 'when made again declaring the elicitation capability',
};

/** A 2025-era client that declared elicitation, whose request does not accept a stream. */
export const NO_EVENT_STREAM: Unaskable = {
  reason:
    'the question is put on the response stream, and this request does not accept text/event-stream',
  remedy: 'when made again with Accept: application/json, text/event-stream',
};
