/**
 * The one catalogue of expected failures (architecture.md, habit 6). Every failure the
 * gateway answers with has a stable code, an HTTP status for the REST surface, and a
 * place in MCP: a tool result with isError (the model can act on it) or a JSON-RPC
 * error (the call itself was malformed). docs/errors.md is tested against this table.
 */
export interface CatalogueEntry {
  readonly status: number;
  readonly mcp: 'tool-error' | 'jsonrpc';
  readonly summary: string;
}

export const ERROR_CATALOGUE = {
  INVALID_JSON: { status: 400, mcp: 'jsonrpc', summary: 'The request body is not valid JSON.' },
  INVALID_ARGUMENTS: {
    status: 400,
    mcp: 'tool-error',
    summary:
      'Arguments do not match the tool input schema: wrong type, out of bounds, missing, or not declared.',
  },
  PATH_VALUE_REJECTED: {
    status: 400,
    mcp: 'tool-error',
    summary:
      'A path argument holds a character or segment that could change the upstream path (/, \\, .., %, ?, #, control or bidi characters).',
  },
  EXCLUSIVE_ARGUMENTS: {
    status: 400,
    mcp: 'tool-error',
    summary: 'Two arguments of an exclusive group were given together.',
  },
  DENIED_BY_RESTRICT: {
    status: 403,
    mcp: 'tool-error',
    summary: "An argument value is outside the spec's restrict allowlist.",
  },
  UNAUTHENTICATED: { status: 401, mcp: 'jsonrpc', summary: 'No valid credential was presented.' },
  INSUFFICIENT_SCOPE: {
    status: 403,
    mcp: 'jsonrpc',
    summary: 'The caller lacks a scope the grant requires.',
  },
  MISSING_CLAIM: {
    status: 403,
    mcp: 'tool-error',
    summary:
      'The caller is authenticated, but its token lacks a claim a from-claim argument needs, or holds a value of the wrong type.',
  },
  FORBIDDEN_ORIGIN: {
    status: 403,
    mcp: 'jsonrpc',
    summary:
      'A browser Origin that is not allowed, or a Host that is not this gateway (DNS rebinding).',
  },
  UNKNOWN_TOOL: { status: 404, mcp: 'jsonrpc', summary: 'No grant has this tool name.' },
  RESOURCE_NOT_FOUND: {
    status: 404,
    mcp: 'jsonrpc',
    summary:
      'No resource or template of the spec matches this URI (MCP: -32002 before 2026-07-28, -32602 since, with data.uri).',
  },
  UNKNOWN_PROMPT: { status: 404, mcp: 'jsonrpc', summary: 'No prompt of the spec has this name.' },
  NOT_FOUND: {
    status: 404,
    mcp: 'jsonrpc',
    summary:
      'Nothing is served at this path (an unknown path, a malformed %-escape, an over-long path segment).',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    mcp: 'jsonrpc',
    summary:
      'The path is served, but not for this method; the Allow header names the one it takes.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    mcp: 'jsonrpc',
    summary: 'The request body is over the 4 MiB limit.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    mcp: 'jsonrpc',
    summary: 'The request body is not application/json.',
  },
  MALFORMED_REQUEST: {
    status: 400,
    mcp: 'jsonrpc',
    summary:
      'The HTTP request itself could not be read (request line, header or chunk framing); the connection is closed.',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    mcp: 'jsonrpc',
    summary:
      "The request's headers are over the server's header size limit; the connection is closed.",
  },
  REQUEST_TIMEOUT: {
    status: 408,
    mcp: 'jsonrpc',
    summary:
      'The request headers did not arrive within 10 s, or the whole request within the request timeout; the connection is closed.',
  },
  UPSTREAM_STATUS: {
    status: 502,
    mcp: 'tool-error',
    summary: 'The upstream answered with a non-2xx status (redirects are not followed).',
  },
  UPSTREAM_UNREACHABLE: {
    status: 502,
    mcp: 'tool-error',
    summary: 'The upstream could not be reached: connection refused or reset, DNS failure.',
  },
  UPSTREAM_BAD_RESPONSE: {
    status: 502,
    mcp: 'tool-error',
    summary:
      'The upstream response could not be used: invalid JSON where JSON was declared, an encoding we did not ask for, or larger than the read cap.',
  },
  UPSTREAM_TIMEOUT: {
    status: 504,
    mcp: 'tool-error',
    summary: "The upstream did not answer in full within the grant's timeout.",
  },
  SQL_TIMEOUT: {
    status: 504,
    mcp: 'tool-error',
    summary: "The statement timed out (statement-timeout, or the grant's timeout).",
  },
  SQL_CONFLICT: {
    status: 409,
    mcp: 'tool-error',
    summary:
      'A unique or foreign-key constraint refused the write; the SQLSTATE and constraint are named, row data is not.',
  },
  SQL_CONSTRAINT: {
    status: 400,
    mcp: 'tool-error',
    summary:
      'A check or not-null constraint refused the write; the SQLSTATE and constraint are named, row data is not.',
  },
  SQL_DATA: {
    status: 400,
    mcp: 'tool-error',
    summary: 'The database refused a value (out of range, invalid input for its type).',
  },
  SQL_ERROR: {
    status: 502,
    mcp: 'tool-error',
    summary: 'The database refused the statement for another reason (its SQLSTATE is given).',
  },
  POOL_EXHAUSTED: {
    status: 503,
    mcp: 'tool-error',
    summary:
      'Every database connection stayed busy for the checkout timeout; retry after Retry-After.',
  },
  DATABASE_UNAVAILABLE: {
    status: 503,
    mcp: 'tool-error',
    summary: 'The database cannot be reached; readiness reports it until it is back.',
  },
  RATE_LIMITED: {
    status: 429,
    mcp: 'tool-error',
    summary:
      "The caller has used the grant's rate-limit for the current window; retry after Retry-After (the seconds left in the window).",
  },
  OVERLOADED: {
    status: 503,
    mcp: 'tool-error',
    summary: 'Too many calls are in flight; retry after the Retry-After delay.',
  },
  DRAINING: {
    status: 503,
    mcp: 'tool-error',
    summary: 'The gateway is shutting down and takes no new calls.',
  },
  INTERNAL: {
    status: 500,
    mcp: 'tool-error',
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
