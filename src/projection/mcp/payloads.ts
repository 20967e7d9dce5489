/**
 * Results that never change while a spec is loaded, serialized once at boot per era
 * (bytes ready to write): server/discover, tools/list, initialize, ping.
 */
import type { CompiledSpec } from '../../spec/descriptor.js';
import { toolList } from './tool-definition.js';
import { LEGACY_VERSIONS, META_SERVER_INFO, MODERN_VERSIONS } from './versions.js';

/** How long a client may cache discover and tools/list (the list changes only on reload). */
export const LIST_TTL_MS = 60_000;

export interface Payloads {
  readonly discover: string;
  readonly modernToolsList: string;
  readonly legacyToolsList: string;
  /** initialize result per legacy version we answer with. */
  readonly initialize: ReadonlyMap<string, string>;
  /** The `_meta` member every modern result carries, as JSON text. */
  readonly modernMeta: string;
  readonly serverInfo: { readonly name: string; readonly version: string; readonly title?: string };
}

export function buildPayloads(spec: CompiledSpec): Payloads {
  const serverInfo = {
    name: spec.server.name,
    version: spec.server.version,
    ...(spec.server.title !== undefined && { title: spec.server.title }),
  };
  const instructions = spec.server.instructions;
  const capabilities = { tools: { listChanged: false } };
  const meta = { [META_SERVER_INFO]: serverInfo };
  const { tools } = toolList(spec.tools);
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
  return {
    discover: JSON.stringify(discover),
    modernToolsList: JSON.stringify({
      tools,
      ttlMs: LIST_TTL_MS,
      cacheScope: 'public',
      resultType: 'complete',
      _meta: meta,
    }),
    legacyToolsList: JSON.stringify({ tools }),
    initialize,
    modernMeta: JSON.stringify(meta),
    serverInfo,
  };
}
