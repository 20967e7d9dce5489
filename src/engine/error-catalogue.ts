/**
 * The one catalogue of expected failures (architecture.md, "Where errors come from"). Every failure the
 * gateway answers with has a stable code and one row here: its HTTP status, who the answer
 * is for (the model that made the call, the client whose request was refused, or anyone
 * at the HTTP edge), whether it carries a WWW-Authenticate challenge, and what it means.
 * The rows name no protocol: each projection frames them its own way (the MCP one keeps
 * its protocol's codes in projection/mcp/). docs/errors.md is rendered from
 * both and tested against them.
 */

/** The WWW-Authenticate an answer carries: where to get a credential, or which scopes a grant needs. */
export type Challenge = 'credentials' | 'scopes';

/**
 * Who the answer is for. `model`: the call itself failed, and the one who made it can act
 * on the answer (MCP: a tool result). `client`: the request was refused before any call,
 * and the program that sent it must change (MCP: a protocol error). `edge`: answered at
 * the HTTP edge, the same on every path, since no request of any surface was read; with
 * `restOnly`, a refusal the REST routes alone make.
 */
export type Audience = 'model' | 'client' | 'edge';

export interface CatalogueEntry {
  /** The HTTP status of the answer (a projection may frame a `client` row its own way). */
  readonly status: number;
  readonly audience: Audience;
  readonly challenge?: Challenge;
  /** An `edge` row raised by the REST routes alone. */
  readonly restOnly?: true;
  readonly summary: string;
}

export const ERROR_CATALOGUE = {
  INVALID_JSON: {
    status: 400,
    audience: 'client',
    summary: 'The request body is not valid JSON.',
  },
  INVALID_ARGUMENTS: {
    status: 400,
    audience: 'model',
    summary:
      'Arguments do not match the tool input schema: wrong type, out of bounds, missing, or not declared.',
  },
  PATH_VALUE_REJECTED: {
    status: 400,
    audience: 'model',
    summary:
      'A path argument holds a character or segment that could change the upstream path (/, \\, .., %, ?, #, control or bidi characters).',
  },
  EXCLUSIVE_ARGUMENTS: {
    status: 400,
    audience: 'model',
    summary: 'Two arguments of an exclusive group were given together.',
  },
  DENIED_BY_RESTRICT: {
    status: 403,
    audience: 'model',
    summary: "An argument value is outside the spec's restrict allowlist.",
  },
  UNAUTHENTICATED: {
    status: 401,
    audience: 'client',
    challenge: 'credentials',
    summary: 'No valid credential was presented.',
  },
  INSUFFICIENT_SCOPE: {
    status: 403,
    audience: 'client',
    challenge: 'scopes',
    summary: 'The caller lacks a scope the grant requires.',
  },
  MISSING_CLAIM: {
    status: 403,
    audience: 'model',
    summary:
      'The caller is authenticated, but its token lacks a claim a from-claim argument needs, or holds a value of the wrong type.',
  },
  FORBIDDEN_ORIGIN: {
    status: 403,
    audience: 'client',
    summary:
      'A browser Origin that is not allowed, or a Host that is not this gateway (DNS rebinding).',
  },
  UNKNOWN_TOOL: {
    status: 404,
    audience: 'client',
    summary: 'No grant has this tool name.',
  },
  RESOURCE_NOT_FOUND: {
    status: 404,
    audience: 'client',
    summary: 'No resource or template of the spec matches this URI.',
  },
  UNKNOWN_PROMPT: {
    status: 404,
    audience: 'client',
    summary: 'No prompt of the spec has this name.',
  },
  NOT_FOUND: {
    status: 404,
    audience: 'edge',
    summary:
      'Nothing is served at this path (an unknown path, a malformed %-escape, an over-long path segment).',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    audience: 'client',
    summary:
      'The path is served, but not for this method; the Allow header names the one it takes.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    audience: 'client',
    summary: 'The request body is over the 4 MiB limit.',
  },
  // Raised by the REST routes' body parser (projection/rest/rest-body.ts); the MCP route takes any
  // content type (projection/mcp/mcp-routes.ts), so this never reaches an MCP client.
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    audience: 'edge',
    restOnly: true,
    summary:
      'The request body is not application/json (REST only: POST /mcp reads a body of any content type).',
  },
  MALFORMED_REQUEST: {
    status: 400,
    audience: 'edge',
    summary:
      'The HTTP request itself could not be read (request line, header or chunk framing); the connection is closed.',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    audience: 'edge',
    summary:
      "The request's headers are over the server's header size limit; the connection is closed.",
  },
  REQUEST_TIMEOUT: {
    status: 408,
    audience: 'edge',
    summary:
      'The request headers did not arrive within 10 s, or the whole request within the request timeout; the connection is closed.',
  },
  UPSTREAM_STATUS: {
    status: 502,
    audience: 'model',
    summary: 'The upstream answered with a non-2xx status (redirects are not followed).',
  },
  UPSTREAM_AUTH: {
    status: 502,
    audience: 'model',
    summary:
      'The gateway could not obtain the upstream credential: the token endpoint refused (its OAuth error code is named, nothing else of its answer), did not answer, or answered something that is not a token; nothing was sent to the upstream.',
  },
  IDENTITY_UNAVAILABLE: {
    status: 403,
    audience: 'model',
    summary:
      'The upstream acts for the caller (auth exchange) and the caller has no token to exchange (an API key, or no sign-in token); nothing was sent.',
  },
  AUTHORIZATION_REQUIRED: {
    status: 403,
    audience: 'model',
    summary:
      "The upstream is called with the caller's own account (auth user) and the caller has not connected it, or the provider revoked it; details.authorization gives provider, url and expires_at. Open the url, connect, and repeat the call; nothing was sent.",
  },
  UPSTREAM_UNREACHABLE: {
    status: 502,
    audience: 'model',
    summary: 'The upstream could not be reached: connection refused or reset, DNS failure.',
  },
  UPSTREAM_BAD_RESPONSE: {
    status: 502,
    audience: 'model',
    summary:
      'The upstream response could not be used: invalid JSON where JSON was declared, an encoding we did not ask for, or larger than the read cap.',
  },
  UPSTREAM_TIMEOUT: {
    status: 504,
    audience: 'model',
    summary: "The upstream did not answer in full within the grant's timeout.",
  },
  UPSTREAM_TOOL_ERROR: {
    status: 502,
    audience: 'model',
    summary:
      "An upstream MCP server's tool answered isError: true; its text is quoted (redacted, at most 2 KB of it).",
  },
  UPSTREAM_ERROR: {
    status: 502,
    audience: 'model',
    summary: 'An upstream MCP server answered the call with a JSON-RPC error.',
  },
  UPSTREAM_UNAVAILABLE: {
    status: 503,
    audience: 'model',
    summary:
      'An upstream MCP server cannot be reached, or its stdio child is down or restarting; retry after Retry-After.',
  },
  UPSTREAM_PROTOCOL: {
    status: 502,
    audience: 'model',
    summary:
      'An upstream MCP server answered with something that is not MCP, or asked for input the gateway does not relay.',
  },
  SQL_TIMEOUT: {
    status: 504,
    audience: 'model',
    summary: "The statement timed out (statement-timeout, or the grant's timeout).",
  },
  SQL_CONFLICT: {
    status: 409,
    audience: 'model',
    summary:
      'A unique or foreign-key constraint refused the write; the SQLSTATE and constraint are named, row data is not.',
  },
  SQL_CONSTRAINT: {
    status: 400,
    audience: 'model',
    summary:
      'A check or not-null constraint refused the write; the SQLSTATE and constraint are named, row data is not.',
  },
  SQL_DATA: {
    status: 400,
    audience: 'model',
    summary: 'The database refused a value (out of range, invalid input for its type).',
  },
  SQL_ERROR: {
    status: 502,
    audience: 'model',
    summary: 'The database refused the statement for another reason (its SQLSTATE is given).',
  },
  POOL_EXHAUSTED: {
    status: 503,
    audience: 'model',
    summary:
      'Every database connection stayed busy for the checkout timeout; retry after Retry-After.',
  },
  DATABASE_UNAVAILABLE: {
    status: 503,
    audience: 'model',
    summary: 'The database cannot be reached; readiness reports it until it is back.',
  },
  RATE_LIMITED: {
    status: 429,
    audience: 'model',
    summary:
      "The caller has used the grant's rate-limit for the current window, or holds the 20 pending approvals one caller may; retry after Retry-After (when the window ends, or the first approval lapses).",
  },
  // Confirmation and approval (spec-language.md, "Confirmation and approval").
  CONFIRMATION_UNAVAILABLE: {
    status: 428,
    audience: 'model',
    summary:
      "The grant asks the caller's user to confirm, and this request has no way to ask its user (REST, or an MCP client that cannot answer a question); nothing was sent.",
  },
  CONFIRMATION_DECLINED: {
    status: 403,
    audience: 'model',
    summary:
      'The user declined the confirmation (or accepted with confirm: false); nothing was sent.',
  },
  CONFIRMATION_CANCELLED: {
    status: 409,
    audience: 'model',
    summary:
      'The user dismissed the confirmation without answering; nothing was sent. The call may be made again.',
  },
  CONFIRMATION_INVALID: {
    status: 400,
    audience: 'model',
    summary:
      "The retry's requestState is forged, expired, already used, or bound to another caller, tool or arguments, or the retry carries no state or answer; nothing was sent.",
  },
  CONFIRMATION_EXPIRED: {
    status: 410,
    audience: 'model',
    summary:
      "The confirmation on the gateway's page (/confirm/<id>) lapsed before the caller's user answered it; nothing was sent. Repeating the call asks again.",
  },
  CONFIRMATION_OTHER_CALLER: {
    status: 403,
    audience: 'edge',
    restOnly: true,
    summary:
      'GET or POST /api/confirmations/<id>: the confirmation belongs to another caller; only the caller whose call it is may see or answer it, and the call does not run.',
  },
  CONFIRMATION_DECIDED: {
    status: 409,
    audience: 'edge',
    restOnly: true,
    summary: 'POST /api/confirmations/<id>: the confirmation was already confirmed or declined.',
  },
  CONFIRMATION_TIMED_OUT: {
    status: 408,
    audience: 'model',
    summary:
      'A 2025-era client was asked to confirm on the stream of its call and sent no answer within 10 minutes; nothing was sent. The call may be made again.',
  },
  APPROVAL_REQUIRED: {
    status: 202,
    audience: 'model',
    summary:
      'The call waits for someone holding the approving scope; details.approval gives its id, url, message, scope and expires_at. Repeat the same call once it is approved.',
  },
  APPROVAL_DECLINED: {
    status: 403,
    audience: 'model',
    summary:
      'The approver declined the call; nothing was sent. Repeating it asks for a new approval.',
  },
  APPROVAL_EXPIRED: {
    status: 410,
    audience: 'model',
    summary:
      'The approval lapsed before it was used (or before anyone decided it); nothing was sent. Repeating the call asks again.',
  },
  CONSENT_UNAVAILABLE: {
    status: 503,
    audience: 'model',
    summary:
      'The store of confirmations and approvals (Redis, with limits redis-env) does not answer; nothing was sent, and nothing is approved by default. Retry shortly.',
  },
  APPROVAL_OWN_CALL: {
    status: 403,
    audience: 'edge',
    restOnly: true,
    summary:
      'POST /api/approvals/<id>: a caller cannot decide an approval of its own call, even holding the scope.',
  },
  APPROVAL_DECIDED: {
    status: 409,
    audience: 'edge',
    restOnly: true,
    summary: 'POST /api/approvals/<id>: the approval was already approved or declined.',
  },
  OVERLOADED: {
    status: 503,
    audience: 'model',
    summary: 'Too many calls are in flight; retry after the Retry-After delay.',
  },
  DRAINING: {
    status: 503,
    audience: 'model',
    summary: 'The gateway is shutting down and takes no new calls.',
  },
  INTERNAL: {
    status: 500,
    audience: 'model',
    summary: 'A bug in the gateway; the request id in the logs locates it.',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface FieldProblem {
  /** The argument, as a JSON pointer into the arguments ("/per_page", "/labels/2"). */
  readonly field: string;
  readonly message: string;
}

/** An expected failure: a value, never thrown across the pipeline. */
export interface EngineError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly details?: readonly FieldProblem[] | Readonly<Record<string, unknown>>;
  /** Seconds, for OVERLOADED, DRAINING and RATE_LIMITED (REST sends it as Retry-After). */
  readonly retryAfter?: number;
}

export function engineError(
  code: ErrorCode,
  message: string,
  extra: Omit<EngineError, 'code' | 'message'> = {},
): EngineError {
  return { code, message, ...extra };
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

/** The scopes an answer's challenge names: every scope the refused grant needs. */
export function requiredScopes(e: EngineError): readonly string[] {
  const required = (e.details as { required?: unknown } | undefined)?.required;
  return Array.isArray(required) ? (required as string[]) : [];
}
