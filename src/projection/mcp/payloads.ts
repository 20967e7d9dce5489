/**
 * Results that never change while a spec is loaded, serialized once at boot per era
 * (bytes ready to write): server/discover, initialize, and tools/list. When `access`
 * filters the list by scope, each distinct scope set gets its list built once and
 * cached, and the list's cacheScope becomes "private".
 */
import type { Caller } from '../../engine/caller.js';
import { missingScopes } from '../../engine/guards/scopes.js';
import type { CompiledSpec } from '../../spec/descriptor.js';
import { toolList } from './tool-definition.js';
import { LEGACY_VERSIONS, META_SERVER_INFO, MODERN_VERSIONS } from './versions.js';

/** How long a client may cache discover and tools/list (the list changes only on reload). */
export const LIST_TTL_MS = 60_000;
/** Distinct scope sets whose lists are kept; beyond it lists are built per call. */
const LIST_CACHE_MAX = 256;

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

export function buildPayloads(spec: CompiledSpec, filtered: boolean): Payloads {
  const serverInfo = {
    name: spec.server.name,
    version: spec.server.version,
    ...(spec.server.title !== undefined && { title: spec.server.title }),
  };
  const instructions = spec.server.instructions;
  const capabilities = { tools: { listChanged: false } };
  const meta = { [META_SERVER_INFO]: serverInfo };
  const cacheScope = filtered ? 'private' : 'public';
  const discover = {
    supportedVersions: [...MODERN_VERSIONS, ...LEGACY_VERSIONS],
    capabilities,
    serverInfo,
    ...(instructions !== undefined && { instructions }),
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
        ...(instructions !== undefined && { instructions }),
      }),
    );
  }
  const listsOf = (caller: Caller): ToolLists => {
    const { tools } = toolList(
      spec.tools.filter((d) => missingScopes(d.scopes, caller).length === 0),
    );
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
  const everyone = listsOf({ id: 'anonymous', scopes: 'all' });
  const cache = new Map<string, ToolLists>();
  return {
    discover: JSON.stringify(discover),
    initialize,
    modernMeta: JSON.stringify(meta),
    toolLists(caller) {
      if (!filtered || caller.scopes === 'all') return everyone;
      const key = [...caller.scopes].sort().join(' ');
      let lists = cache.get(key);
      if (!lists) {
        lists = listsOf(caller);
        if (cache.size < LIST_CACHE_MAX) cache.set(key, lists);
      }
      return lists;
    },
  };
}
