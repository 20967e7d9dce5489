/**
 * `completion/complete` in the engine: the values a prompt argument or a template
 * variable may take (its enum, the grant field's enum, a restrict list), offered by
 * prefix. Only what the caller may see is completed.
 */
import type { Caller } from '../caller.js';
import { engineError, type EngineError } from '../error-catalogue.js';
import { checkScopes } from '../guards/scopes.js';
import { clipped, MAX_QUOTED_URI } from '../refusal-text.js';
import type { PromptCatalog } from './prompts.js';
import type { ResourceCatalog } from './resources.js';
import type { Toolset } from '../view/toolsets.js';

/** The protocol's cap on values per answer. */
export const MAX_COMPLETION_VALUES = 100;

export type CompletionRef =
  | { readonly type: 'ref/prompt'; readonly name: string }
  | { readonly type: 'ref/resource'; readonly uri: string };

export type Completion =
  | {
      readonly ok: true;
      readonly values: readonly string[];
      readonly total: number;
      readonly hasMore: boolean;
    }
  | { readonly ok: false; readonly error: EngineError };

export function complete(
  prompts: PromptCatalog,
  resources: ResourceCatalog,
  ref: CompletionRef,
  argument: string,
  prefix: string,
  caller: Caller,
  toolset?: Toolset,
): Completion {
  let values: readonly string[] | undefined;
  let known: boolean;
  if (ref.type === 'ref/prompt') {
    // In a toolset, a non-member is unknown there, as for prompts/get.
    const p = toolset && !toolset.hasPrompt(ref.name) ? undefined : prompts.byName(ref.name);
    if (!p)
      return {
        ok: false,
        error: engineError(
          'UNKNOWN_PROMPT',
          `Unknown prompt: ${JSON.stringify(clipped(ref.name))}`,
        ),
      };
    const denied = checkScopes(`prompt ${p.name}`, p.scopes, caller);
    if (denied) return { ok: false, error: denied };
    const a = p.arguments.find((x) => x.name === argument);
    known = a !== undefined;
    values = a?.enum;
  } else {
    const found = resources.byUri(ref.uri);
    const r = found && toolset && !toolset.hasResource(found) ? undefined : found;
    if (!r)
      return {
        ok: false,
        error: engineError(
          'RESOURCE_NOT_FOUND',
          `no resource or template is ${clipped(ref.uri, MAX_QUOTED_URI)}`,
          { details: { uri: clipped(ref.uri, MAX_QUOTED_URI) } },
        ),
      };
    const denied = checkScopes(`resource ${r.uri}`, r.scopes, caller);
    if (denied) return { ok: false, error: denied };
    const v = r.variables.find((x) => x.name === argument);
    known = v !== undefined;
    values = v?.values;
  }
  if (!known)
    return {
      ok: false,
      error: engineError(
        'INVALID_ARGUMENTS',
        `${clipped(argument)} is not an argument of this ${ref.type === 'ref/prompt' ? 'prompt' : 'template'}`,
        {
          details: [{ field: `/${clipped(argument)}`, message: 'is not declared' }],
        },
      ),
    };
  const matching = (values ?? []).filter((v) => v.startsWith(prefix));
  return {
    ok: true,
    values: matching.slice(0, MAX_COMPLETION_VALUES),
    total: matching.length,
    hasMore: matching.length > MAX_COMPLETION_VALUES,
  };
}
