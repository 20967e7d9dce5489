/** Per-grant scopes: every `scope` of a grant must be held by the caller (spec-language.md, "access"). */
import type { Caller } from '../caller.js';
import { engineError, type EngineError } from '../error-catalogue.js';

export function missingScopes(required: readonly string[], caller: Caller): string[] {
  if (caller.scopes === 'all') return [];
  const held = caller.scopes;
  return required.filter((s) => !held.has(s));
}

export function checkScopes(
  tool: string,
  required: readonly string[],
  caller: Caller,
): EngineError | undefined {
  if (required.length === 0) return undefined;
  const missing = missingScopes(required, caller);
  if (missing.length === 0) return undefined;
  return engineError(
    'INSUFFICIENT_SCOPE',
    `calling ${tool} needs scope ${required.join(' ')}; missing ${missing.join(' ')}`,
    {
      details: { required, missing },
    },
  );
}
