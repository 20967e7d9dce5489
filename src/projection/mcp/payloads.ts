/**
 * Results that never change while a spec is loaded, serialized once at boot per era
 * (bytes ready to write): server/discover, initialize, the lists (tools, resources,
 * resource templates, prompts) and the reads of fixed resources. Which entries a caller
 * sees is the engine's answer (`gateway.visibleTo`); each view gets its lists built
 * once, and with `access` on a list's cacheScope is "private".
 */
import type { Caller } from '../../engine/caller.js';
import type { Gateway } from '../../engine/gateway.js';
import type { VisibleTools } from '../../engine/visibility.js';
import { ENVELOPE_GUIDE } from '../../compiler/output-schema.js';
import type { ResourceDescriptor } from '../../compiler/descriptor.js';
import { promptDefinition, resourceDefinition, templateDefinition } from './resource-definition.js';
import { toolList } from './tool-definition.js';
import { LEGACY_VERSIONS, META_SERVER_INFO, MODERN_VERSIONS } from './versions.js';

/** How long a client may cache discover and tools/list (the list changes only on reload). */
export const LIST_TTL_MS = 60_000;

/** One result as UTF-8 bytes per era, ready to write (no per-request encoding). */
export interface EraBytes {
  readonly modern: Buffer;
  readonly legacy: Buffer;
}

/** tools/list results, per era. */
export type ToolLists = EraBytes;

/** Every list result of one view, per era. */
export interface ViewLists {
  readonly tools: ToolLists;
  readonly resources: EraBytes;
  readonly templates: EraBytes;
  readonly prompts: EraBytes;
}

export interface Payloads {
  readonly discover: string;
  /** initialize result per legacy version we answer with. */
  readonly initialize: ReadonlyMap<string, string>;
  /** The `_meta` member every modern result carries, as JSON text. */
  readonly modernMeta: string;
  toolLists(caller: Caller): ToolLists;
  /** tools/list, resources/list, resources/templates/list and prompts/list of this caller. */
  lists(caller: Caller): ViewLists;
  /** resources/read of each fixed resource, as bytes per era. */
  readonly fixedReads: ReadonlyMap<ResourceDescriptor, EraBytes>;
  /** Whether callers are told apart (`access`): results that depend on scopes are private. */
  readonly filtered: boolean;
}

/** `modernTail` as text to append inside a result object (`metaJson` is `modernMeta`). */
export function modernTailText(
  ttlMs: number,
  cacheScope: 'public' | 'private',
  metaJson: string,
): string {
  return `,"ttlMs":${ttlMs},"cacheScope":"${cacheScope}","resultType":"complete","_meta":${metaJson}`;
}

/** The 2026-07-28 cache hints and tail every result of these methods carries. */
export function modernTail(
  ttlMs: number,
  cacheScope: 'public' | 'private',
  meta: unknown,
): Record<string, unknown> {
  return { ttlMs, cacheScope, resultType: 'complete', _meta: meta };
}

export function buildPayloads(gateway: Gateway, filtered: boolean): Payloads {
  const { spec } = gateway;
  const serverInfo = {
    name: spec.server.name,
    version: spec.server.version,
    ...(spec.server.title !== undefined && { title: spec.server.title }),
  };
  // The envelope is explained here once, not in every tool's outputSchema (output-schema.ts).
  const instructions =
    spec.server.instructions === undefined
      ? ENVELOPE_GUIDE
      : `${spec.server.instructions}\n\n${ENVELOPE_GUIDE}`;
  const capabilities = capabilitiesOf(gateway);
  const meta = { [META_SERVER_INFO]: serverInfo };
  const cacheScope = filtered ? 'private' : 'public';
  const discover = {
    supportedVersions: [...MODERN_VERSIONS, ...LEGACY_VERSIONS],
    capabilities,
    serverInfo,
    instructions,
    resultType: 'complete',
    ttlMs: LIST_TTL_MS,
    cacheScope: 'public',
    _meta: meta,
  };
  const initialize = new Map<string, string>();
  for (const v of LEGACY_VERSIONS) {
    initialize.set(
      v,
      JSON.stringify({
        protocolVersion: v,
        capabilities,
        serverInfo,
        instructions,
      }),
    );
  }
  // The items are serialized once for both eras: the modern result is the legacy one
  // with the tail appended (the same text JSON.stringify gives the merged object). A
  // 500-tool list is 320 kB of JSON, which the first tools/list used to build twice.
  const modernTailJson = modernTailText(LIST_TTL_MS, cacheScope, JSON.stringify(meta));
  const both = (key: string, items: unknown[]): EraBytes => {
    const head = `{${JSON.stringify(key)}:${JSON.stringify(items)}`;
    return { modern: Buffer.from(`${head}${modernTailJson}}`), legacy: Buffer.from(`${head}}`) };
  };
  const listsOf = (view: VisibleTools): ViewLists => ({
    tools: both('tools', toolList(view.descriptors).tools),
    resources: both('resources', view.resources.map(resourceDefinition)),
    templates: both('resourceTemplates', view.templates.map(templateDefinition)),
    prompts: both('prompts', view.prompts.map(promptDefinition)),
  });
  // Views are interned by the engine (bounded), so the lists are built once per view.
  const cache = new WeakMap<VisibleTools, ViewLists>();
  const lists = (caller: Caller): ViewLists => {
    const view = gateway.visibleTo(caller);
    let built = cache.get(view);
    if (!built) cache.set(view, (built = listsOf(view)));
    return built;
  };
  // A fixed resource reads the same for everyone allowed to: prepared once, public unless
  // its scopes make it depend on who asks.
  const fixedReads = new Map<ResourceDescriptor, EraBytes>();
  for (const r of spec.resources) {
    // The engine's prepared contents: redacted once, the same on every surface.
    const served = gateway.resources.fixed(r);
    if (!served) continue;
    const contents = [served];
    const scope = filtered && r.scopes.length > 0 ? 'private' : 'public';
    fixedReads.set(r, {
      modern: Buffer.from(JSON.stringify({ contents, ...modernTail(LIST_TTL_MS, scope, meta) })),
      legacy: Buffer.from(JSON.stringify({ contents })),
    });
  }
  return {
    discover: JSON.stringify(discover),
    initialize,
    modernMeta: JSON.stringify(meta),
    toolLists: (caller) => lists(caller).tools,
    lists,
    fixedReads,
    filtered,
  };
}

/**
 * `resources`, `prompts` and `completions` only when the spec has them (no list
 * changes within a runtime: a reload is a new runtime; no subscriptions).
 */
function capabilitiesOf(gateway: Gateway): Record<string, unknown> {
  const { resources, prompts } = gateway.spec;
  const completes =
    prompts.some((p) => p.arguments.some((a) => a.enum !== undefined)) ||
    resources.some((r) => r.variables.some((v) => v.values !== undefined));
  return {
    tools: { listChanged: false },
    ...(resources.length > 0 && { resources: { listChanged: false } }),
    ...(prompts.length > 0 && { prompts: { listChanged: false } }),
    ...(completes && { completions: {} }),
  };
}
