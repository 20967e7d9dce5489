/**
 * Who sees what: the tools a caller may call are those whose every scope it holds
 * (spec-language.md, "Access"). The engine decides it once here; tools/list, GET /api and
 * the OpenAPI document only render the view they are given (architecture.md, habit 5).
 *
 * A view is frozen and the same object for every caller whose scopes yield the same
 * tools, so a projection can cache what it renders from a view by the view itself.
 */
import type { Caller } from './caller.js';
import type { Descriptor } from '../spec/descriptor.js';
import { missingScopes } from './guards/scopes.js';
import type { Operation } from './operation.js';

export interface VisibleTools {
  /** The tools the caller may call, in spec order. */
  readonly operations: readonly Operation[];
  readonly descriptors: readonly Descriptor[];
  /** The tool names joined by commas: equal for equal views. */
  readonly key: string;
  has(name: string): boolean;
}

export type VisibleTo = (caller: Caller) => VisibleTools;

/**
 * Distinct scope sets whose views are kept; beyond it a view is computed per call, so a
 * stream of invented scope sets cannot grow the cache without limit.
 */
const VIEW_CACHE_MAX = 256;

export function prepareVisibility(operations: readonly Operation[]): VisibleTo {
  const views = new Map<string, VisibleTools>();
  const intern = (ops: readonly Operation[]): VisibleTools => {
    const key = ops.map((op) => op.name).join(',');
    const known = views.get(key);
    if (known) return known;
    const view = makeView(ops, key);
    if (views.size < VIEW_CACHE_MAX) views.set(key, view);
    return view;
  };
  const everything = intern(operations);
  const byScopes = new Map<string, VisibleTools>();
  return (caller) => {
    if (caller.scopes === 'all') return everything;
    const scopeKey = [...caller.scopes].sort().join(' ');
    let view = byScopes.get(scopeKey);
    if (!view) {
      view = intern(
        operations.filter((op) => missingScopes(op.descriptor.scopes, caller).length === 0),
      );
      if (byScopes.size < VIEW_CACHE_MAX) byScopes.set(scopeKey, view);
    }
    return view;
  };
}

function makeView(ops: readonly Operation[], key: string): VisibleTools {
  const names = new Set(ops.map((op) => op.name));
  return Object.freeze({
    operations: Object.freeze([...ops]),
    descriptors: Object.freeze(ops.map((op) => op.descriptor)),
    key,
    has: (name: string) => names.has(name),
  });
}
