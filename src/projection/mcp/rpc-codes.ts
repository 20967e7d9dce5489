/**
 * How MCP frames the catalogue's failures (engine/error-catalogue.ts): the JSON-RPC code of
 * each row it answers as a JSON-RPC error, the HTTP status where MCP's differs from the
 * row's, the codes one era answers otherwise, and the endpoint's own refusals of a
 * message. The engine's rows name no protocol; this table is where the eras live.
 */
import { ERROR_CATALOGUE, type ErrorCode } from '../../engine/error-catalogue.js';

/** JSON-RPC 2.0's reserved codes, and those MCP adds. */
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
  /** The 2025 era's Streamable HTTP: the session id is unknown (HTTP 404); as the SDKs send it. */
  SESSION_NOT_FOUND: -32001,
  /** 2026-07-28: the protocol version is not one this endpoint serves. */
  UNSUPPORTED_VERSION: -32022,
  /**
   * 2025-11-25: the request waits on a page its user must open (`data.elicitations`, URL
   * elicitations); the client repeats it after (consent-round-trip.ts).
   */
  URL_ELICITATION_REQUIRED: -32042,
} as const;

/** MCP's framing of one catalogue row. */
export interface RpcRow {
  /**
   * The JSON-RPC code: of the error a `client` row is answered with, or of a `model` row
   * where it arises outside a call (INTERNAL: the route itself failed).
   */
  readonly rpc?: number;
  /** MCP's HTTP status when it is not the row's (an unknown tool is a JSON-RPC error in a 200). */
  readonly status?: number;
  /**
   * 2026-07-28 answers this `model` row as this JSON-RPC error instead of a result, with
   * HTTP 400: the request did not declare a capability the call needs.
   */
  readonly modernRpc?: number;
  /** What else the MCP answer carries, for docs/errors.md. */
  readonly note?: string;
}

/** Keyed by catalogue code; a `client` row without a line here fails the typecheck below. */
export const RPC_CODES = {
  INVALID_JSON: { rpc: RPC.PARSE_ERROR },
  UNAUTHENTICATED: { rpc: RPC.INVALID_REQUEST },
  INSUFFICIENT_SCOPE: { rpc: RPC.INVALID_REQUEST },
  FORBIDDEN_ORIGIN: { rpc: RPC.INVALID_REQUEST },
  UNKNOWN_TOOL: { rpc: RPC.INVALID_PARAMS, status: 200 },
  // resources/read of a URI nothing serves: -32602 since 2026-07-28 (SEP-2164); the 2025
  // eras answer -32002, the code their schema reserves (method-support.ts).
  RESOURCE_NOT_FOUND: {
    rpc: RPC.INVALID_PARAMS,
    status: 200,
    note: 'with `data.uri`; `-32002` before 2026-07-28',
  },
  UNKNOWN_PROMPT: { rpc: RPC.INVALID_PARAMS, status: 200 },
  METHOD_NOT_ALLOWED: { rpc: RPC.INVALID_REQUEST },
  PAYLOAD_TOO_LARGE: { rpc: RPC.INVALID_REQUEST },
  CONFIRMATION_UNAVAILABLE: {
    modernRpc: RPC.MISSING_CAPABILITY,
    note: 'when the request does not declare the elicitation capability, with `data.requiredCapabilities`; a 2025-era request gets the tool result',
  },
  INTERNAL: { rpc: RPC.INTERNAL_ERROR },
} as const satisfies Partial<Record<ErrorCode, RpcRow>>;

type ClientCode = {
  [K in ErrorCode]: (typeof ERROR_CATALOGUE)[K]['audience'] extends 'client' ? K : never;
}[ErrorCode];
// Every row MCP answers as a JSON-RPC error has its code here.
const EVERY_CLIENT_ROW_HAS_A_CODE: Record<ClientCode, { readonly rpc: number }> = RPC_CODES;
void EVERY_CLIENT_ROW_HAS_A_CODE;

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
 * INVALID_JSON (-32700): the same failure REST reports for a body.
 */
export const PROTOCOL_ERRORS = {
  INVALID_REQUEST: {
    status: 400,
    rpc: RPC.INVALID_REQUEST,
    summary:
      'Not one JSON-RPC 2.0 request: a batch, a response answering no open question, a bad id or method, params that are not an object, a nesting too deep, or an MCP-Protocol-Version header this endpoint does not serve.',
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
  UNKNOWN_SESSION: {
    status: 404,
    rpc: RPC.SESSION_NOT_FOUND,
    summary:
      'A 2025-era request presents an Mcp-Session-Id that is forged, expired (after 24 hours) or issued to another caller; the client initializes again.',
  },
  INVALID_PARAMS: {
    status: 200,
    rpc: RPC.INVALID_PARAMS,
    summary:
      "A method's params are not what it takes: tools/call without a string name, or with arguments that are not an object.",
  },
} as const satisfies Record<string, ProtocolEntry>;

export type ProtocolErrorCode = keyof typeof PROTOCOL_ERRORS;

/** Every code MCP can answer with a JSON-RPC error: the protocol's own, and rows with an `rpc`. */
export type RpcErrorCode =
  | ProtocolErrorCode
  | {
      [K in keyof typeof RPC_CODES]: (typeof RPC_CODES)[K] extends { readonly rpc: number }
        ? K
        : never;
    }[keyof typeof RPC_CODES];

/** MCP's row of a catalogue code; empty for one it answers as a tool result only. */
export function rpcRow(code: ErrorCode): RpcRow {
  return Object.hasOwn(RPC_CODES, code) ? RPC_CODES[code as keyof typeof RPC_CODES] : {};
}

/** A call's failure MCP answers as a JSON-RPC error rather than as a tool result. */
export function isRpcError(code: ErrorCode): code is ErrorCode & RpcErrorCode {
  return ERROR_CATALOGUE[code].audience === 'client';
}

/** How MCP frames a JSON-RPC error of this code: its HTTP status (per era) and JSON-RPC code. */
export function rpcFraming(code: RpcErrorCode, legacy: boolean): { status: number; rpc: number } {
  if (Object.hasOwn(PROTOCOL_ERRORS, code)) {
    const p: ProtocolEntry = PROTOCOL_ERRORS[code as ProtocolErrorCode];
    return { status: (legacy ? p.legacyStatus : undefined) ?? p.status, rpc: p.rpc };
  }
  const row = rpcRow(code as ErrorCode);
  // RpcErrorCode admits only rows with an rpc code.
  return { status: row.status ?? ERROR_CATALOGUE[code as ErrorCode].status, rpc: row.rpc! };
}

/** The JSON-RPC code of a row, where MCP can answer it as a JSON-RPC error at all. */
export function rpcOf(code: ErrorCode): number | undefined {
  return ERROR_CATALOGUE[code].audience === 'edge' ? undefined : rpcRow(code).rpc;
}
