/**
 * Results that never change while a spec is loaded, serialized once at boot per era
 * (bytes ready to write): server/discover, initialize, the lists (tools, resources,
 * resource templates, prompts) and the reads of fixed resources. Which entries a caller
 * sees is the engine's answer (`gateway.view(toolset).visibleTo`); each view gets its lists built
 * once, and with `access` on a list's cacheScope is "private". `/mcp` has one Payloads,
 * and each toolset's endpoint `/mcp/<toolset>` one of its own (spec-language.md,
 * "Served at `/mcp/<toolset>`"): its instructions, its capabilities, its members' lists.
 */
import type { Caller } from '../../engine/caller.js';
import type { Gateway } from '../../engine/gateway.js';
import type { VisibleTools } from '../../engine/view/visibility.js';
import { ENVELOPE_GUIDE } from '../../compiler/output-schema.js';
import type { PromptDescriptor, ResourceDescriptor } from '../../compiler/descriptor.js';
import type { Toolset } from '../../engine/view/toolsets.js';
import { promptDefinition, resourceDefinition, templateDefinition } from './resource-definition.js';
import { toolList } from './tool-definition.js';
import { LEGACY_VERSIONS, META_SERVER_INFO, MODERN_VERSIONS } from '../../mcp-wire/versions.js';

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

/**
 * The methods an endpoint answers beyond tools: those of a kind it has none of are
 * -32601 (a spec, or a toolset, without resources answers resources/list so).
 */
export interface Serves {
  readonly resources: boolean;
  readonly prompts: boolean;
  /** completion/complete: with a prompt or a resource template to complete. */
  readonly completion: boolean;
}

export interface Payloads {
  /** The toolset these answer for at `/mcp/<toolset>`; undefined for `/mcp`. */
  readonly toolset: Toolset | undefined;
  /** What this endpoint answers (its capabilities); `/mcp` the spec's, a toolset its members'. */
  readonly serves: Serves;
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

/**
 * The payloads of `/mcp`, or with `toolset` of `/mcp/<toolset>`: the same server, its
 * lists and capabilities narrowed to the members, its `describe` put before the
 * instructions.
 */
export function buildPayloads(gateway: Gateway, filtered: boolean, toolset?: Toolset): Payloads {
  const { spec } = gateway;
  const serverInfo = serverInfoOf(gateway);
  // The envelope is explained here once, not in every tool's outputSchema (output-schema.ts).
  const gatewayInstructions =
    spec.server.instructions === undefined
      ? ENVELOPE_GUIDE
      : `${spec.server.instructions}\n\n${ENVELOPE_GUIDE}`;
  const describe = toolset?.descriptor.description;
  const instructions =
    describe === undefined ? gatewayInstructions : `${describe}\n\n${gatewayInstructions}`;
  const offered = offeredBy(
    toolset ? toolset.resources : spec.resources,
    toolset ? toolset.prompts : spec.prompts,
  );
  const capabilities = capabilitiesOf(offered);
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
    const view = gateway.view(toolset).visibleTo(caller);
    let built = cache.get(view);
    if (!built) cache.set(view, (built = listsOf(view)));
    return built;
  };
  // A toolset reads its member fixed resources as /mcp does: the same prepared bytes.
  const fixedReads = fixedReadsOf(gateway, filtered);
  return {
    toolset,
    serves: offered.serves,
    discover: JSON.stringify(discover),
    initialize,
    modernMeta: JSON.stringify(meta),
    toolLists: (caller) => lists(caller).tools,
    lists,
    fixedReads,
    filtered,
  };
}

function serverInfoOf({ spec }: Gateway): Record<string, string> {
  return {
    name: spec.server.name,
    version: spec.server.version,
    ...(spec.server.title !== undefined && { title: spec.server.title }),
  };
}

/** What an endpoint serves beyond tools, and whether it has values to complete. */
interface Offered {
  readonly serves: Serves;
  readonly completes: boolean;
}

function offeredBy(
  resources: readonly ResourceDescriptor[],
  prompts: readonly PromptDescriptor[],
): Offered {
  return {
    serves: Object.freeze({
      resources: resources.length > 0,
      prompts: prompts.length > 0,
      completion: prompts.length > 0 || resources.some((r) => r.template),
    }),
    completes:
      prompts.some((p) => p.arguments.some((a) => a.enum !== undefined)) ||
      resources.some((r) => r.variables.some((v) => v.values !== undefined)),
  };
}

/**
 * `resources`, `prompts` and `completions` only when the endpoint has them (no list
 * changes within a runtime: a reload is a new runtime; no subscriptions).
 */
function capabilitiesOf({ serves, completes }: Offered): Record<string, unknown> {
  return {
    tools: { listChanged: false },
    ...(serves.resources && { resources: { listChanged: false } }),
    ...(serves.prompts && { prompts: { listChanged: false } }),
    ...(completes && { completions: {} }),
  };
}

/** Per gateway and `filtered`: `/mcp` and every toolset share one set of prepared reads. */
const fixedReadsByGateway = new WeakMap<
  Gateway,
  Map<boolean, ReadonlyMap<ResourceDescriptor, EraBytes>>
>();

/**
 * A fixed resource reads the same for everyone allowed to: prepared once, public unless
 * its scopes make it depend on who asks.
 */
function fixedReadsOf(
  gateway: Gateway,
  filtered: boolean,
): ReadonlyMap<ResourceDescriptor, EraBytes> {
  let byFiltered = fixedReadsByGateway.get(gateway);
  if (!byFiltered) fixedReadsByGateway.set(gateway, (byFiltered = new Map()));
  const known = byFiltered.get(filtered);
  if (known) return known;
  const { spec } = gateway;
  const meta = { [META_SERVER_INFO]: serverInfoOf(gateway) };
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
  byFiltered.set(filtered, fixedReads);
  return fixedReads;
}
