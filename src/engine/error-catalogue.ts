/**
 * The one catalogue of expected failures (architecture.md, "Where errors come from"). Every failure the
 * gateway answers with has a stable code and one row here that says how each surface
 * answers it: the HTTP status, where MCP puts it (a tool result with isError, which the
 * model can act on, or a JSON-RPC error with its code, when the message itself was
 * refused), and whether the answer carries a WWW-Authenticate challenge. The REST and
 * MCP reply builders read these rows; neither names a code to decide how to answer.
 * docs/errors.md is rendered from this file and tested against it.
 */

/** The WWW-Authenticate an answer carries: where to get a credential, or which scopes a grant needs. */
export type Challenge = 'credentials' | 'scopes';

interface EntryCommon {
  /** The HTTP status of the REST answer, and of MCP's JSON-RPC error unless `mcpStatus` differs. */
  readonly status: number;
  readonly challenge?: Challenge;
  readonly summary: string;
}

/** A failure of the call itself: MCP answers it as a tools/call result with isError. */
export interface ToolErrorEntry extends EntryCommon {
  readonly mcp: 'tool-error';
  /** The JSON-RPC code when it arises outside a call (INTERNAL: the route itself failed). */
  readonly rpc?: number;
  /**
   * 2026-07-28 answers it as this JSON-RPC error instead of a result: the request did not
   * declare a capability the call needs (CONFIRMATION_UNAVAILABLE: -32021).
   */
  readonly modernRpc?: number;
}

/** A refused message: MCP answers it as a JSON-RPC error. */
export interface RpcErrorEntry extends EntryCommon {
  readonly mcp: 'jsonrpc';
  readonly rpc: number;
  /** MCP's HTTP status when it is not REST's (an unknown tool is a JSON-RPC error in a 200). */
  readonly mcpStatus?: number;
}

/**
 * Answered in the REST shape, never as a JSON-RPC error: either before any surface is
 * known (node's HTTP parser, the router), on every path, /mcp included, since no JSON-RPC
 * message was read; or by the REST routes alone, for a refusal /mcp never makes
 * (UNSUPPORTED_MEDIA_TYPE: /mcp reads a body of any content type as text).
 */
export interface HttpOnlyEntry extends EntryCommon {
  readonly mcp: 'http';
  /** Raised by the REST routes alone: /mcp never answers it. */
  readonly restOnly?: true;
}

export type CatalogueEntry = ToolErrorEntry | RpcErrorEntry | HttpOnlyEntry;

/** JSON-RPC 2.0's reserved codes, and the two 2026-07-28 adds. */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** 2026-07-28: a mirrored header disagrees with the body, or is missing. */
  HEADER_MISMATCH: -32020,
  /** 2026-07-28: the request lacks a client capability the call needs (`data.requiredCapabilities`). */
  MISSING_CAPABILITY: -32021,
  /** 2026-07-28: the protocol version is not one this endpoint serves. */
  UNSUPPORTED_VERSION: -32022,
} as const;

export const ERROR_CATALOGUE = {
  INVALID_JSON: {
    status: 400,
    mcp: 'jsonrpc',
    rpc: RPC.PARSE_ERROR,
    summary: 'The request body is not valid JSON.',
  },
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
  UNAUTHENTICATED: {
    status: 401,
    mcp: 'jsonrpc',
    rpc: RPC.INVALID_REQUEST,
    challenge: 'credentials',
    summary: 'No valid credential was presented.',
  },
  INSUFFICIENT_SCOPE: {
    status: 403,
    mcp: 'jsonrpc',
    rpc: RPC.INVALID_REQUEST,
    challenge: 'scopes',
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
    rpc: RPC.INVALID_REQUEST,
    summary:
      'A browser Origin that is not allowed, or a Host that is not this gateway (DNS rebinding).',
  },
  UNKNOWN_TOOL: {
    status: 404,
    mcp: 'jsonrpc',
    rpc: RPC.INVALID_PARAMS,
    mcpStatus: 200,
    summary: 'No grant has this tool name.',
  },
  // resources/read of a URI nothing serves: -32602 since 2026-07-28 (SEP-2164); the 2025
  // eras answer -32002, the code their schema reserves (projection/mcp/method-support.ts).
  RESOURCE_NOT_FOUND: {
    status: 404,
    mcp: 'jsonrpc',
    rpc: RPC.INVALID_PARAMS,
    mcpStatus: 200,
    summary:
      'No resource or template of the spec matches this URI (MCP: -32602 with data.uri; -32002 before 2026-07-28).',
  },
  UNKNOWN_PROMPT: {
    status: 404,
    mcp: 'jsonrpc',
    rpc: RPC.INVALID_PARAMS,
    mcpStatus: 200,
    summary: 'No prompt of the spec has this name.',
  },
  NOT_FOUND: {
    status: 404,
    mcp: 'http',
    summary:
      'Nothing is served at this path (an unknown path, a malformed %-escape, an over-long path segment).',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    mcp: 'jsonrpc',
    rpc: RPC.INVALID_REQUEST,
    summary:
      'The path is served, but not for this method; the Allow header names the one it takes.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    mcp: 'jsonrpc',
    rpc: RPC.INVALID_REQUEST,
    summary: 'The request body is over the 4 MiB limit.',
  },
  // Raised by the REST routes' body parser (projection/rest/rest-body.ts); the MCP route takes any
  // content type (projection/mcp/mcp-routes.ts), so this never reaches a JSON-RPC client.
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    mcp: 'http',
    restOnly: true,
    summary:
      'The request body is not application/json (REST only: POST /mcp reads a body of any content type).',
  },
  MALFORMED_REQUEST: {
    status: 400,
    mcp: 'http',
    summary:
      'The HTTP request itself could not be read (request line, header or chunk framing); the connection is closed.',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    mcp: 'http',
    summary:
      "The request's headers are over the server's header size limit; the connection is closed.",
  },
  REQUEST_TIMEOUT: {
    status: 408,
    mcp: 'http',
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
  UPSTREAM_TOOL_ERROR: {
    status: 502,
    mcp: 'tool-error',
    summary:
      "An upstream MCP server's tool answered isError: true; its text is quoted (redacted, at most 2 KB of it).",
  },
  UPSTREAM_ERROR: {
    status: 502,
    mcp: 'tool-error',
    summary: 'An upstream MCP server answered the call with a JSON-RPC error.',
  },
  UPSTREAM_UNAVAILABLE: {
    status: 503,
    mcp: 'tool-error',
    summary:
      'An upstream MCP server cannot be reached, or its stdio child is down or restarting; retry after Retry-After.',
  },
  UPSTREAM_PROTOCOL: {
    status: 502,
    mcp: 'tool-error',
    summary:
      'An upstream MCP server answered with something that is not MCP, or asked for input the gateway does not relay.',
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
      "The caller has used the grant's rate-limit for the current window, or holds the 20 pending approvals one caller may; retry after Retry-After (when the window ends, or the first approval lapses).",
  },
  // Confirmation and approval (spec-language.md, "Confirmation and approval"): every code
  // but CONFIRMATION_UNAVAILABLE in 2026-07-28 is a tool result the model can act on.
  CONFIRMATION_UNAVAILABLE: {
    status: 428,
    mcp: 'tool-error',
    modernRpc: RPC.MISSING_CAPABILITY,
    summary:
      "The grant asks the caller's user to confirm, and this client cannot be asked: a 2026-07-28 request without the elicitation capability (-32021 with data.requiredCapabilities), a 2025-era request or REST.",
  },
  CONFIRMATION_DECLINED: {
    status: 403,
    mcp: 'tool-error',
    summary:
      'The user declined the confirmation (or accepted with confirm: false); nothing was sent.',
  },
  CONFIRMATION_CANCELLED: {
    status: 409,
    mcp: 'tool-error',
    summary:
      'The user dismissed the confirmation without answering; nothing was sent. The call may be made again.',
  },
  CONFIRMATION_INVALID: {
    status: 400,
    mcp: 'tool-error',
    summary:
      "The retry's requestState is forged, expired, already used, or bound to another caller, tool or arguments, or the retry carries no state or answer; nothing was sent.",
  },
  APPROVAL_REQUIRED: {
    status: 202,
    mcp: 'tool-error',
    summary:
      'The call waits for someone holding the approving scope; details.approval gives its id, url, message, scope and expires_at. Repeat the same call once it is approved.',
  },
  APPROVAL_DECLINED: {
    status: 403,
    mcp: 'tool-error',
    summary:
      'The approver declined the call; nothing was sent. Repeating it asks for a new approval.',
  },
  APPROVAL_EXPIRED: {
    status: 410,
    mcp: 'tool-error',
    summary:
      'The approval lapsed before it was used (or before anyone decided it); nothing was sent. Repeating the call asks again.',
  },
  CONSENT_UNAVAILABLE: {
    status: 503,
    mcp: 'tool-error',
    summary:
      'The store of confirmations and approvals (Redis, with limits redis-env) does not answer; nothing was sent, and nothing is approved by default. Retry shortly.',
  },
  APPROVAL_OWN_CALL: {
    status: 403,
    mcp: 'http',
    restOnly: true,
    summary:
      'POST /api/approvals/<id>: a caller cannot decide an approval of its own call, even holding the scope.',
  },
  APPROVAL_DECIDED: {
    status: 409,
    mcp: 'http',
    restOnly: true,
    summary: 'POST /api/approvals/<id>: the approval was already approved or declined.',
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
    rpc: RPC.INTERNAL_ERROR,
    summary: 'A bug in the gateway; the request id in the logs locates it.',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** A refusal of the JSON-RPC message itself, before any tool is involved: MCP only. */
export interface ProtocolEntry {
  /** The HTTP status of the JSON-RPC error (2026-07-28's, where the eras differ). */
  readonly status: number;
  /** The status a legacy (2025-11-25 and older) client gets, where it differs. */
  readonly legacyStatus?: number;
  readonly rpc: number;
  readonly summary: string;
}

/**
 * The MCP endpoint's own refusals (protocol.md). A message that is not JSON at all is
 * INVALID_JSON above (-32700): the same failure REST reports for a body.
 */
export const PROTOCOL_ERRORS = {
  INVALID_REQUEST: {
    status: 400,
    rpc: RPC.INVALID_REQUEST,
    summary:
      'Not one JSON-RPC 2.0 request: a batch, a response, a bad id or method, params that are not an object, a nesting too deep, or an MCP-Protocol-Version header this endpoint does not serve.',
  },
  INVALID_META: {
    status: 400,
    rpc: RPC.INVALID_PARAMS,
    summary:
      'The body does not declare its protocol as 2026-07-28 needs: a protocolVersion that is not a string, no clientCapabilities, or a 2026-07-28 header over a body that claims no version.',
  },
  HEADER_MISMATCH: {
    status: 400,
    rpc: RPC.HEADER_MISMATCH,
    summary:
      'A 2026-07-28 mirrored header (MCP-Protocol-Version, Mcp-Method, Mcp-Name) is missing or disagrees with the body; the body is the source of truth.',
  },
  UNSUPPORTED_VERSION: {
    status: 400,
    rpc: RPC.UNSUPPORTED_VERSION,
    summary:
      'The body claims a protocol version this endpoint does not serve; `data.supported` lists those it does.',
  },
  METHOD_NOT_FOUND: {
    status: 404,
    legacyStatus: 200,
    rpc: RPC.METHOD_NOT_FOUND,
    summary: 'No method of that name in the era the message belongs to.',
  },
  INVALID_PARAMS: {
    status: 200,
    rpc: RPC.INVALID_PARAMS,
    summary:
      "A method's params are not what it takes: tools/call without a string name, or with arguments that are not an object.",
  },
} as const satisfies Record<string, ProtocolEntry>;

export type ProtocolErrorCode = keyof typeof PROTOCOL_ERRORS;

/** Every code MCP can answer with a JSON-RPC error: the protocol's own, and catalogue rows with an `rpc`. */
export type RpcErrorCode =
  | ProtocolErrorCode
  | {
      [K in ErrorCode]: (typeof ERROR_CATALOGUE)[K] extends { readonly rpc: number } ? K : never;
    }[ErrorCode];

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

/** A call's failure MCP answers as a JSON-RPC error rather than as a tool result. */
export function isRpcError(code: ErrorCode): code is ErrorCode & RpcErrorCode {
  return ERROR_CATALOGUE[code].mcp === 'jsonrpc';
}

/** How MCP frames a JSON-RPC error of this code: its HTTP status (per era) and JSON-RPC code. */
export function rpcFraming(code: RpcErrorCode, legacy: boolean): { status: number; rpc: number } {
  if (Object.hasOwn(PROTOCOL_ERRORS, code)) {
    const p: ProtocolEntry = PROTOCOL_ERRORS[code as ProtocolErrorCode];
    return { status: (legacy ? p.legacyStatus : undefined) ?? p.status, rpc: p.rpc };
  }
  const e: CatalogueEntry = ERROR_CATALOGUE[code as ErrorCode];
  // RpcErrorCode admits only rows with an rpc code.
  return { status: (e.mcp === 'jsonrpc' ? e.mcpStatus : undefined) ?? e.status, rpc: rpcOf(e)! };
}

/** The JSON-RPC code of a row, where MCP can answer it as a JSON-RPC error at all. */
export function rpcOf(e: CatalogueEntry): number | undefined {
  return e.mcp === 'http' ? undefined : e.rpc;
}

/** The scopes an answer's challenge names: every scope the refused grant needs. */
export function requiredScopes(e: EngineError): readonly string[] {
  const required = (e.details as { required?: unknown } | undefined)?.required;
  return Array.isArray(required) ? (required as string[]) : [];
}
