/**
 * Who sees what: the tools a caller may call are those whose every scope it holds
 * (spec-language.md, "access"); the resources, templates and prompts it may read or get
 * are those whose every scope it holds (a `from=` resource carries its grant's scopes,
 * a prompt those of the resources it embeds). The engine decides it once here; the
 * lists of MCP, GET /api and the OpenAPI document only render the view they are given:
 * projections translate, they never decide.
 *
 * A view is frozen and the same object for every caller whose scopes yield the same
 * tools, resources and prompts, so a projection can cache what it renders from a view
 * by the view itself.
 */
import type { Caller } from './caller.js';
import type {
  ToolDescriptor,
  PromptDescriptor,
  ResourceDescriptor,
} from '../compiler/descriptor.js';
import { missingScopes } from './guards/scopes.js';
import type { Operation } from './operation.js';

export interface VisibleTools {
  /** The tools the caller may call, in spec order. */
  readonly operations: readonly Operation[];
  readonly descriptors: readonly ToolDescriptor[];
  /** Fixed-URI resources the caller may read, in spec order. */
  readonly resources: readonly ResourceDescriptor[];
  /** Resource templates the caller may read, in spec order. */
  readonly templates: readonly ResourceDescriptor[];
  readonly prompts: readonly PromptDescriptor[];
  /** The names and URIs joined: equal for equal views. */
  readonly key: string;
  has(name: string): boolean;
}

export type VisibleTo = (caller: Caller) => VisibleTools;

/**
 * Distinct scope sets whose views are kept; beyond it a view is computed per call, so a
 * stream of invented scope sets cannot grow the cache without limit.
 */
const VIEW_CACHE_MAX = 256;

export interface Visible {
  readonly operations: readonly Operation[];
  readonly resources: readonly ResourceDescriptor[];
  readonly prompts: readonly PromptDescriptor[];
}

export function prepareVisibility(
  operations: readonly Operation[],
  resources: readonly ResourceDescriptor[] = [],
  prompts: readonly PromptDescriptor[] = [],
): VisibleTo {
  const views = new Map<string, VisibleTools>();
  const served = resources.length + prompts.length > 0;
  const intern = (v: Visible): VisibleTools => {
    const tools = v.operations.map((op) => op.name).join(',');
    // A spec without resources or prompts keeps the plain list of tool names.
    const key = served
      ? `${tools}|${v.resources.map((r) => r.uri).join(' ')}|${v.prompts.map((p) => p.name).join(',')}`
      : tools;
    const known = views.get(key);
    if (known) return known;
    const view = makeView(v, key);
    if (views.size < VIEW_CACHE_MAX) views.set(key, view);
    return view;
  };
  const everything = intern({ operations, resources, prompts });
  const byScopes = new Map<string, VisibleTools>();
  return (caller) => {
    if (caller.scopes === 'all') return everything;
    const scopeKey = [...caller.scopes].sort().join(' ');
    let view = byScopes.get(scopeKey);
    if (!view) {
      const holds = (scopes: readonly string[]): boolean =>
        missingScopes(scopes, caller).length === 0;
      view = intern({
        operations: operations.filter((op) => holds(op.descriptor.scopes)),
        resources: resources.filter((r) => holds(r.scopes)),
        prompts: prompts.filter((p) => holds(p.scopes)),
      });
      if (byScopes.size < VIEW_CACHE_MAX) byScopes.set(scopeKey, view);
    }
    return view;
  };
}

function makeView(v: Visible, key: string): VisibleTools {
  const names = new Set(v.operations.map((op) => op.name));
  return Object.freeze({
    operations: Object.freeze([...v.operations]),
    descriptors: Object.freeze(v.operations.map((op) => op.descriptor)),
    resources: Object.freeze(v.resources.filter((r) => !r.template)),
    templates: Object.freeze(v.resources.filter((r) => r.template)),
    prompts: Object.freeze([...v.prompts]),
    key,
    has: (name: string) => names.has(name),
  });
}
