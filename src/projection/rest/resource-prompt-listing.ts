/**
 * The resources, templates and prompts of GET /api (beside `tools`), and the prepared
 * answers of POST /api/resources/read for fixed resources. Each entry is serialized once
 * per loaded spec; which entries a caller gets is the engine's view (`view(toolset).visibleTo`).
 * Entries carry what a form needs beyond the MCP lists: a template's variables with their
 * types and values, a prompt argument's default, enum and pattern.
 */
import type { ResourceCatalog } from '../../engine/resources-prompts/resources.js';
import type { VisibleTools } from '../../engine/view/visibility.js';
import type {
  CompiledSpec,
  PromptDescriptor,
  ResourceDescriptor,
} from '../../compiler/descriptor.js';
import {
  about,
  promptArgument,
  resourceDefinition,
  templateDefinition,
} from '../mcp/resource-definition.js';

export const READ_RESOURCE_PATH = '/api/resources/read';
export const GET_PROMPT_PATH = '/api/prompts/get';

/** How a resource is read, or a prompt got, over REST. */
const READ = { method: 'POST', path: READ_RESOURCE_PATH } as const;
const GET = { method: 'POST', path: GET_PROMPT_PATH } as const;

function resourceEntry(r: ResourceDescriptor): string {
  return JSON.stringify({ ...resourceDefinition(r), ...READ });
}

function templateEntry(r: ResourceDescriptor): string {
  const variables = r.variables.map((v) => ({
    name: v.name,
    type: v.type,
    ...(v.values !== undefined && { enum: v.values }),
  }));
  return JSON.stringify({ ...templateDefinition(r), variables, ...READ });
}

function promptEntry(p: PromptDescriptor): string {
  const args = p.arguments.map((a) => ({
    ...promptArgument(a),
    ...(a.default !== undefined && { default: a.default }),
    ...(a.enum !== undefined && { enum: a.enum }),
    ...(a.pattern !== undefined && { pattern: a.pattern }),
    maxLength: a.maxLength,
  }));
  return JSON.stringify({ name: p.name, ...about(p), arguments: args, ...GET });
}

/** Which of the two kinds a listing names at all (empty lists included). */
export interface ServedKinds {
  readonly resources: boolean;
  readonly prompts: boolean;
}

export interface ResourcePromptListing {
  /**
   * `,"resources":[…],"resourceTemplates":[…],"prompts":[…]` of a view, or ''. A kind is
   * named when `serves` says so: by default when the spec serves it; a toolset's listing
   * passes its own (servedKinds), as its MCP capabilities name only what it has.
   */
  membersOf(view: VisibleTools, serves?: ServedKinds): string;
  /** The whole answer to a read of a fixed resource. */
  fixedRead(r: ResourceDescriptor): string | undefined;
}

export function prepareResourcePromptListing(
  spec: CompiledSpec,
  catalog: Pick<ResourceCatalog, 'fixed'>,
): ResourcePromptListing {
  const entries = new Map<ResourceDescriptor | PromptDescriptor, string>();
  for (const r of spec.resources) entries.set(r, r.template ? templateEntry(r) : resourceEntry(r));
  for (const p of spec.prompts) entries.set(p, promptEntry(p));
  const list = (items: readonly (ResourceDescriptor | PromptDescriptor)[]): string =>
    `[${items.map((i) => entries.get(i)!).join(',')}]`;
  // Present as MCP's capabilities are: only when the spec serves resources, or prompts.
  const whole = servedKinds(spec);
  const reads = new Map<ResourceDescriptor, string>();
  for (const r of spec.resources) {
    // The engine's prepared contents: redacted once, the same on every surface.
    const served = catalog.fixed(r);
    if (served) reads.set(r, JSON.stringify({ contents: [served] }));
  }
  return {
    membersOf: (view, serves = whole) =>
      (serves.resources
        ? `,"resources":${list(view.resources)},"resourceTemplates":${list(view.templates)}`
        : '') + (serves.prompts ? `,"prompts":${list(view.prompts)}` : ''),
    fixedRead: (r) => reads.get(r),
  };
}

/** The kinds the spec serves, or a toolset has members of (spec-language.md, "Toolsets"). */
export function servedKinds(of: {
  readonly resources: readonly unknown[];
  readonly prompts: readonly unknown[];
}): ServedKinds {
  return { resources: of.resources.length > 0, prompts: of.prompts.length > 0 };
}
