/** A checked Spec → the frozen CompiledSpec, every default and path resolved. */
import { dirname, isAbsolute, join } from 'node:path';
import { normalizeBaseUrl } from './base-url.js';
import type { SpecOverrides } from './check-spec.js';
import type { CompiledSpec, DatabaseDescriptor } from './descriptor.js';
import { deepFreeze } from './freeze.js';
import { DEFAULT_TIMEOUT_MS, lowerGrant } from './lower-grant.js';
import { lowerPrompts } from './lower-prompt.js';
import { lowerResources } from './lower-resource.js';
import type { Spec } from './spec-types.js';

const DATABASE_DEFAULTS = { pool: 10, statementTimeoutMs: 10_000, checkoutTimeoutMs: 1_000 };

export function lowerSpec(spec: Spec, overrides: SpecOverrides = {}): CompiledSpec {
  const text = overrides.baseUrl ?? spec.baseUrl?.value;
  const normalized = text === undefined ? undefined : normalizeBaseUrl(text);
  const database = spec.database && lowerDatabase(spec.database, spec.file);
  const scope = {
    spec,
    baseUrl: normalized?.ok ? normalized.url : '',
    statementTimeoutMs: database?.statementTimeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  const { wrap } = spec;
  const tools = spec.grants.map((g) => lowerGrant(g, scope));
  const resources = lowerResources(spec, tools);
  return deepFreeze<CompiledSpec>({
    file: spec.file,
    server: {
      name: wrap.name,
      version: wrap.version,
      ...(wrap.title !== undefined && { title: wrap.title }),
      ...(wrap.describe !== undefined && { instructions: wrap.describe }),
    },
    tools,
    resources,
    prompts: lowerPrompts(spec, resources),
    ...(database && { database }),
    ...(spec.access && { access: spec.access }),
    ...(spec.limits.redisEnv !== undefined && { redisEnv: spec.limits.redisEnv }),
    ...(spec.baseUrl?.connections !== undefined && {
      upstreamConnections: spec.baseUrl.connections,
    }),
  });
}

/** Settings left out take their defaults; the embedded seed is read beside the spec. */
function lowerDatabase(db: NonNullable<Spec['database']>, file: string): DatabaseDescriptor {
  const settings = {
    pool: db.pool ?? DATABASE_DEFAULTS.pool,
    statementTimeoutMs: db.statementTimeoutMs ?? DATABASE_DEFAULTS.statementTimeoutMs,
    checkoutTimeoutMs: db.checkoutTimeoutMs ?? DATABASE_DEFAULTS.checkoutTimeoutMs,
  };
  if (db.kind === 'env') return { kind: 'env', env: db.env, ...settings };
  const seed =
    db.seed === undefined || isAbsolute(db.seed) ? db.seed : join(dirname(file), db.seed);
  return { kind: 'embedded', ...(seed !== undefined && { seed }), ...settings };
}
