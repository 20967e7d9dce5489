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
import type { Caller } from '../caller.js';
import type {
  ToolDescriptor,
  PromptDescriptor,
  ResourceDescriptor,
} from '../../compiler/descriptor.js';
import type { RequestScope } from '../call-context.js';
import { complete, type Completion, type CompletionRef } from '../resources-prompts/completion.js';
import { missingScopes } from '../guards/scopes.js';
import type { Operation } from '../operation/operation.js';
import type { PromptCatalog, PromptGet } from '../resources-prompts/prompts.js';
import type { ResourceCatalog, ResourceRead } from '../resources-prompts/resources.js';
import type { Toolset } from './toolsets.js';

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

/**
 * The spec as one URL serves it: the whole spec, or one toolset's members
 * (`gateway.view(toolset)`). A surface resolves names, lists and reads through its
 * request's view, so a non-member is the same answer as a name the spec does not have.
 */
export interface GatewayView {
  readonly toolset: Toolset | undefined;
  /** Looks a tool up by name; a Map, so names like `__proto__` find nothing. */
  operation(name: string): Operation | undefined;
  /** The tools, resources and prompts this caller may see here: one frozen view per outcome. */
  visibleTo(caller: Caller): VisibleTools;
  /**
   * `resources/read`: fixed content after the scope check, or the `from=` grant called
   * with the URI's variables converted to its field types, through the gateway's call.
   */
  readResource(uri: string, scope: RequestScope): Promise<ResourceRead>;
  /** `prompts/get`: arguments checked, placeholders filled, embedded resources read. */
  getPrompt(name: string, args: unknown, scope: RequestScope): Promise<PromptGet>;
  /** `completion/complete`: the enum values of a prompt argument or template variable. */
  complete(ref: CompletionRef, argument: string, prefix: string, caller: Caller): Completion;
}

export interface ViewParts {
  /** The spec's own resources and prompts, in spec order. */
  readonly spec: {
    readonly resources: readonly ResourceDescriptor[];
    readonly prompts: readonly PromptDescriptor[];
  };
  readonly operations: ReadonlyMap<string, Operation>;
  readonly resources: ResourceCatalog;
  readonly prompts: PromptCatalog;
}

/** The view of `toolset` (of the whole spec when undefined), over the gateway's parts. */
export function prepareView(parts: ViewParts, toolset: Toolset | undefined): GatewayView {
  const { spec, operations, resources, prompts } = parts;
  const all = [...operations.values()];
  const visible = toolset
    ? prepareVisibility(
        all.filter((op) => toolset.hasTool(op.name)),
        toolset.resources,
        toolset.prompts,
      )
    : prepareVisibility(all, spec.resources, spec.prompts);
  return Object.freeze({
    toolset,
    operation: (name: string) =>
      toolset && !toolset.hasTool(name) ? undefined : operations.get(name),
    visibleTo: visible,
    readResource: (uri: string, scope: RequestScope) =>
      resources.read(uri, scope, toolset?.hasResource),
    getPrompt: (name: string, args: unknown, scope: RequestScope) =>
      prompts.get(name, args, scope, toolset?.hasPrompt),
    complete: (ref: CompletionRef, argument: string, prefix: string, caller: Caller) =>
      complete(prompts, resources, ref, argument, prefix, caller, toolset),
  });
}
