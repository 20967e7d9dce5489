/**
 * Results that never change while a spec is loaded, serialized once at boot per era
 * (bytes ready to write): server/discover, initialize, and tools/list. Which tools a
 * caller sees is the engine's answer (`gateway.visibleTo`); each view gets its list
 * built once, and with `access` on the list's cacheScope is "private".
 */
import type { Caller } from '../../engine/caller.js';
import type { Gateway } from '../../engine/gateway.js';
import type { VisibleTools } from '../../engine/visibility.js';
import { ENVELOPE_GUIDE } from '../../spec/output-schema.js';
import { toolList } from './tool-definition.js';
import { LEGACY_VERSIONS, META_SERVER_INFO, MODERN_VERSIONS } from './versions.js';

/** How long a client may cache discover and tools/list (the list changes only on reload). */
export const LIST_TTL_MS = 60_000;

/** tools/list results as UTF-8 bytes, ready to write (no per-request encoding). */
export interface ToolLists {
  readonly modern: Buffer;
  readonly legacy: Buffer;
}

export interface Payloads {
  readonly discover: string;
  /** initialize result per legacy version we answer with. */
  readonly initialize: ReadonlyMap<string, string>;
  /** The `_meta` member every modern result carries, as JSON text. */
  readonly modernMeta: string;
  toolLists(caller: Caller): ToolLists;
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
  const capabilities = { tools: { listChanged: false } };
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
  const listsOf = (view: VisibleTools): ToolLists => {
    const { tools } = toolList(view.descriptors);
    return {
      modern: Buffer.from(
        JSON.stringify({
          tools,
          ttlMs: LIST_TTL_MS,
          cacheScope,
          resultType: 'complete',
          _meta: meta,
        }),
      ),
      legacy: Buffer.from(JSON.stringify({ tools })),
    };
  };
  // Views are interned by the engine (bounded), so the lists are built once per view.
  const cache = new WeakMap<VisibleTools, ToolLists>();
  return {
    discover: JSON.stringify(discover),
    initialize,
    modernMeta: JSON.stringify(meta),
    toolLists(caller) {
      const view = gateway.visibleTo(caller);
      let lists = cache.get(view);
      if (!lists) cache.set(view, (lists = listsOf(view)));
      return lists;
    },
  };
}
