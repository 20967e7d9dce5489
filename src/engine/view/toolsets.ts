/**
 * Toolsets in the engine (spec-language.md, "Toolsets"): which tools, resources and
 * prompts a toolset URL lists and accepts. Membership is decided here, once per spec,
 * as Sets over the descriptors the compiler resolved (globs expanded, spec order), so
 * a projection asks `gateway.operation(name, toolset)` and never matches a name itself.
 * Membership only narrows: the scope checks of every call, read and get still apply.
 */
import type {
  CompiledSpec,
  PromptDescriptor,
  ResourceDescriptor,
  ToolDescriptor,
  ToolsetDescriptor,
} from '../../compiler/descriptor.js';

export interface Toolset {
  readonly name: string;
  readonly descriptor: ToolsetDescriptor;
  /** Whether this toolset lists and accepts the tool, resource or prompt. */
  hasTool(name: string): boolean;
  hasResource(resource: ResourceDescriptor): boolean;
  hasPrompt(name: string): boolean;
  /** The spec's tools, resources and prompts that are members, in spec order. */
  readonly tools: readonly ToolDescriptor[];
  readonly resources: readonly ResourceDescriptor[];
  readonly prompts: readonly PromptDescriptor[];
}

/** Every toolset of the spec by name; a Map, so a name like `__proto__` finds nothing. */
export function prepareToolsets(spec: CompiledSpec): ReadonlyMap<string, Toolset> {
  const byName = new Map<string, Toolset>();
  for (const d of spec.toolsets) {
    const tools = new Set(d.tools);
    const uris = new Set(d.resources);
    const prompts = new Set(d.prompts);
    const memberResources = spec.resources.filter((r) => uris.has(r.uri));
    const memberPrompts = spec.prompts.filter((p) => prompts.has(p.name));
    const members = new Set<ResourceDescriptor>(memberResources);
    byName.set(
      d.name,
      Object.freeze({
        name: d.name,
        descriptor: d,
        hasTool: (name: string) => tools.has(name),
        hasResource: (r: ResourceDescriptor) => members.has(r),
        hasPrompt: (name: string) => prompts.has(name),
        tools: Object.freeze(spec.tools.filter((t) => tools.has(t.name))),
        resources: Object.freeze(memberResources),
        prompts: Object.freeze(memberPrompts),
      }),
    );
  }
  return byName;
}
