/**
 * The backend kinds, in the order the registry opens them and `check` counts them: the
 * one list the registry, the OpenAPI error rules and `check` read (architecture.md,
 * "Adding a backend kind"). Typed by the descriptors' own `backend.kind` union, so every
 * kind has its entry; each descriptor names its compiler part, which the grant kind's
 * own table holds too (the compiler reads nothing of the engine).
 */
import { HTTP_KIND } from './http/http-kind.js';
import type { BackendOf, KindDescriptor, KindName } from './kind.js';
import { MCP_KIND } from './mcp/mcp-kind.js';
import { SQL_KIND } from './sql/sql-kind.js';

export const KINDS: { readonly [K in KindName]: KindDescriptor<K> } = {
  http: HTTP_KIND,
  sql: SQL_KIND,
  mcp: MCP_KIND,
};

/** Any one kind's descriptor. */
export type AnyKind = { [K in KindName]: KindDescriptor<K> }[KindName];

/** Every kind's descriptor, in order. */
export const KIND_LIST: readonly AnyKind[] = Object.values(KINDS);

/** The descriptor of a grant's backend's kind. */
export function kindOf<K extends KindName>(b: BackendOf<K>): KindDescriptor<K> {
  return KINDS[b.kind as K];
}
