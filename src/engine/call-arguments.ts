/**
 * What a call's arguments may be, decided once for both surfaces. Absent means none.
 * Anything else must be a JSON object, and `null` is not absence: MCP's schema makes
 * `tools/call` `arguments` an optional object (the SDKs refuse null with -32602), so
 * REST's `null` body is refused the same way as `[]` or `"x"`. (A `null` for an
 * optional field inside the object is another matter, for validate.ts.)
 */
import { engineError, type EngineError } from './error-catalogue.js';

export type CallArguments = Record<string, unknown>;

export type ArgumentsResult =
  | { readonly ok: true; readonly args: CallArguments }
  | { readonly ok: false; readonly error: EngineError };

export function callArguments(tool: string, raw: unknown): ArgumentsResult {
  if (raw === undefined) return { ok: true, args: {} };
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw))
    return { ok: true, args: raw as CallArguments };
  return {
    ok: false,
    error: engineError('INVALID_ARGUMENTS', `arguments of ${tool} must be a JSON object`, {
      details: [{ field: '', message: 'must be object' }],
    }),
  };
}
