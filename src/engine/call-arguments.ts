/**
 * What a call's arguments may be, decided once for both surfaces. Absent means none.
 * Anything else must be a JSON object, and `null` is not absence: MCP's schema makes
 * `tools/call` `arguments` an optional object (the SDKs refuse null with -32602), so
 * REST's `null` body is refused the same way as `[]` or `"x"`. (A `null` for an
 * optional field inside the object is another matter: guards/optional-nulls.ts.)
 *
 * The arguments travel with the caller's text of their numbers (number-text.ts) to the
 * backend, in the type: whatever makes a CallArguments says which texts it carries.
 */
import { engineError, type EngineError } from './error-catalogue.js';
import type { ExactJson } from '../json/number-text.js';

export type CallArguments = ExactJson<Record<string, unknown>>;

export type ArgumentsResult =
  | { readonly ok: true; readonly args: CallArguments }
  | { readonly ok: false; readonly error: EngineError };

/** `raw` as parsed, or undefined for no arguments at all (an empty REST body). */
export function callArguments(tool: string, raw: ExactJson | undefined): ArgumentsResult {
  const value = raw?.value;
  if (value === undefined) return { ok: true, args: { value: {}, texts: undefined } };
  if (value !== null && typeof value === 'object' && !Array.isArray(value))
    return { ok: true, args: { value: value as Record<string, unknown>, texts: raw!.texts } };
  return {
    ok: false,
    error: engineError('INVALID_ARGUMENTS', `arguments of ${tool} must be a JSON object`, {
      details: [{ field: '', message: 'must be object' }],
    }),
  };
}
