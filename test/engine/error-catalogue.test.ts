import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  engineError,
  ERROR_CATALOGUE,
  type CatalogueEntry,
  type ErrorCode,
} from '../../src/engine/error-catalogue.js';
import {
  PROTOCOL_ERRORS,
  type ProtocolEntry,
  rpcOf,
  rpcRow,
  type RpcErrorCode,
} from '../../src/projection/mcp/rpc-codes.js';
import { rpcError } from '../../src/projection/mcp/rpc-reply.js';
import { restError } from '../../src/projection/rest/rest-error.js';
import { renderErrorDocs } from '../../scripts/render-error-docs.js';

const CATALOGUE = Object.entries(ERROR_CATALOGUE) as [ErrorCode, CatalogueEntry][];
const PROTOCOL = Object.entries(PROTOCOL_ERRORS) as [RpcErrorCode, ProtocolEntry][];

/** JSON-RPC 2.0 reserves -32768..-32000 for the protocol's own errors. */
const isReservedRpcCode = (n: number): boolean => Number.isInteger(n) && n >= -32768 && n <= -32000;

function errorOf(reply: { body: string | Buffer }): {
  code: number;
  message: string;
  data?: unknown;
} {
  return (JSON.parse(String(reply.body)) as { error: { code: number; message: string } }).error;
}

describe('the error catalogue', () => {
  it('is documented in docs/errors.md exactly as the code has it (run npm run docs:errors)', () => {
    expect(readFileSync('docs/errors.md', 'utf8')).toBe(renderErrorDocs());
  });

  it('gives every code an HTTP error status and a place in MCP; only a parked call is 202', () => {
    for (const [code, entry] of CATALOGUE) {
      // APPROVAL_REQUIRED is no failure: the call was accepted and waits for a person.
      if (code === 'APPROVAL_REQUIRED') expect(entry.status, code).toBe(202);
      else expect(entry.status, code).toBeGreaterThanOrEqual(400);
      expect(['model', 'client', 'edge'], code).toContain(entry.audience);
      expect(entry.summary.length, code).toBeGreaterThan(10);
    }
  });

  it('names no MCP code or era in its rows: the MCP projection keeps those in its own table', () => {
    for (const [code, entry] of CATALOGUE) {
      expect(Object.keys(entry).sort(), code).toEqual(
        expect.arrayContaining(['audience', 'status', 'summary']),
      );
      expect(entry.summary, code).not.toMatch(/-32\d{3}|2026-07-28|elicitation/);
    }
  });

  it('gives every code MCP answers as a JSON-RPC error a code in the reserved range', () => {
    for (const [code, entry] of CATALOGUE) {
      const rpc = rpcOf(code);
      // A row MCP answers as a JSON-RPC error must have its code; others may have one.
      if (entry.audience === 'client') expect(rpc, code).toBeDefined();
      if (rpc !== undefined) expect(isReservedRpcCode(rpc), code).toBe(true);
    }
    for (const [code, entry] of PROTOCOL) expect(isReservedRpcCode(entry.rpc), code).toBe(true);
  });

  it('carries a WWW-Authenticate challenge on exactly the 401 and the missing-scope 403', () => {
    const challenged = CATALOGUE.filter(([, e]) => e.challenge !== undefined).map(([c, e]) => [
      c,
      e.status,
      e.challenge,
    ]);
    expect(challenged).toEqual([
      ['UNAUTHENTICATED', 401, 'credentials'],
      ['INSUFFICIENT_SCOPE', 403, 'scopes'],
    ]);
  });

  it('keeps codes in SCREAMING_SNAKE_CASE so clients can match on them', () => {
    for (const [code] of [...CATALOGUE, ...PROTOCOL]) expect(code).toMatch(/^[A-Z][A-Z_]+$/);
  });

  it('gives the protocol errors names no catalogue code has, so a code means one thing', () => {
    for (const [code] of PROTOCOL) expect(Object.keys(ERROR_CATALOGUE)).not.toContain(code);
  });
});

describe('the replies both surfaces build from it', () => {
  it.each(CATALOGUE.map(([code]) => code))(
    'answers %s over REST with its status and code, and a challenge only where the row has one',
    (code) => {
      const r = restError(engineError(code, 'what went wrong'), 'Bearer realm="x"');
      expect(r.status).toBe(ERROR_CATALOGUE[code].status);
      expect(JSON.parse(r.body)).toEqual({ error: { code, message: 'what went wrong' } });
      const entry: CatalogueEntry = ERROR_CATALOGUE[code];
      expect(r.headers['www-authenticate']).toBe(
        entry.challenge === undefined ? undefined : 'Bearer realm="x"',
      );
    },
  );

  it.each(
    CATALOGUE.filter(([code]) => rpcOf(code) !== undefined).map(([code, e]) => [code, e] as const),
  )('answers %s over MCP as a JSON-RPC error with its code and status', (code, e) => {
    const reply = rpcError(code as RpcErrorCode, 7, 'what went wrong');
    expect(reply.status).toBe(rpcRow(code).status ?? e.status);
    expect(errorOf(reply)).toEqual({ code: rpcOf(code), message: 'what went wrong' });
  });

  it.each(PROTOCOL.map(([code, e]) => [code, e] as const))(
    'answers the protocol error %s with its JSON-RPC code, and its legacy status to a legacy client',
    (code, e) => {
      const modern = rpcError(code, 'a', 'no', { data: { why: 1 } });
      expect(modern.status).toBe(e.status);
      expect(errorOf(modern)).toEqual({ code: e.rpc, message: 'no', data: { why: 1 } });
      expect(rpcError(code, 'a', 'no', { legacy: true }).status).toBe(e.legacyStatus ?? e.status);
    },
  );
});
