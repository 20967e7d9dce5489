/** Spec → CompiledSpec: spec-wide checks, every grant, then the cross-grant ones. */
import { dirname, isAbsolute, join } from 'node:path';
import type { Diagnostics, Position } from './diagnostics.js';
import type { CompiledSpec, DatabaseDescriptor, Descriptor, UpstreamAuth } from './descriptor.js';
import {
  compileGrant,
  DEFAULT_BUDGET_BYTES,
  DEFAULT_MAX_BYTES,
  DEFAULT_TIMEOUT_MS,
} from './compile-grant.js';
import { deepFreeze } from './freeze.js';
import { reportPattern } from './grant-builder.js';
import { headerProblem } from './headers.js';
import type { AuthSpec, DatabaseSpec, Spec } from './spec-types.js';

/** Values given at start-up that replace the spec's own (`serve --base-url`). */
export interface SpecOverrides {
  readonly baseUrl?: string;
}

export function compileSpec(
  spec: Spec,
  diag: Diagnostics,
  overrides: SpecOverrides = {},
): CompiledSpec {
  const baseUrlText = overrides.baseUrl ?? spec.baseUrl?.url;
  const baseUrlAt = spec.baseUrl?.at ?? { line: 1, column: 1 };
  const baseUrl =
    baseUrlText !== undefined ? normalizeBaseUrl(baseUrlText, baseUrlAt, diag) : undefined;
  const auth = spec.auth ? upstreamAuth(spec.auth) : undefined;
  const authHeader = authHeaderName(spec.auth);
  if (spec.auth?.kind === 'header') {
    const problem = headerProblem(spec.auth.header, spec.auth.prefix, undefined);
    if (problem) diag.error('SPEC_HEADER', spec.auth.at, ['auth'], problem);
  }
  const headers: [string, string][] = [];
  for (const h of spec.headers) {
    const problem = headerProblem(h.name, h.value, authHeader);
    if (problem) diag.error('SPEC_HEADER', h.at, [`header ${h.name}`], problem);
    else headers.push([h.name, h.value]);
  }
  for (const r of spec.restrict)
    if (r.pattern) reportPattern(r.pattern, diag, [`restrict ${r.argument}`]);

  const restrictUsed = new Set<string>();
  const tools: Descriptor[] = [];
  const firstAt = new Map<string, Position>();
  for (const g of spec.grants) {
    const d = compileGrant(g, {
      diag,
      file: spec.file,
      ...(baseUrl !== undefined && { baseUrl }),
      hasBaseUrl: baseUrlText !== undefined,
      hasDatabase: spec.database !== undefined,
      hasOauth: spec.access?.oauth !== undefined,
      headers,
      ...(auth && { auth }),
      ...(authHeader && { authHeader }),
      timeoutMs: spec.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      statementTimeoutMs: spec.database?.statementTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBytes: spec.limits.maxBytes ?? DEFAULT_MAX_BYTES,
      budgetBytes: spec.limits.budgetBytes ?? DEFAULT_BUDGET_BYTES,
      ...(spec.rateLimit && { rateLimit: spec.rateLimit }),
      restrict: spec.restrict,
      restrictUsed,
    });
    if (!d) continue;
    const first = firstAt.get(d.name);
    if (first) {
      diag.error(
        'SPEC_DUPLICATE_TOOL',
        g.at,
        [`grant ${d.name}`],
        `tool name ${d.name} is already taken by the grant at line ${first.line}`,
      );
      continue;
    }
    firstAt.set(d.name, g.at);
    if (d.description === undefined) {
      diag.warn(
        'SPEC_NO_DESCRIBE',
        g.at,
        [`grant ${d.name}`],
        'no `describe`: agents choose tools by their description',
      );
    }
    tools.push(d);
  }
  for (const r of spec.restrict) {
    if (!restrictUsed.has(r.argument))
      diag.warn(
        'SPEC_RESTRICT_UNUSED',
        r.at,
        [`restrict ${r.argument}`],
        `no grant has an argument named ${r.argument}`,
      );
  }

  const db = spec.database;
  const { wrap } = spec;
  return deepFreeze<CompiledSpec>({
    file: spec.file,
    server: {
      name: wrap.name,
      version: wrap.version,
      ...(wrap.title !== undefined && { title: wrap.title }),
      ...(wrap.describe !== undefined && { instructions: wrap.describe }),
    },
    tools,
    ...(db && { database: databaseDescriptor(db, spec.file) }),
    ...(spec.access && {
      access: {
        apiKeys: spec.access.apiKeys.map((k) => ({ env: k.env, scopes: k.scopes })),
        ...(spec.access.oauth && {
          oauth: {
            issuer: spec.access.oauth.issuer,
            audience: spec.access.oauth.audience,
            jwksUri: spec.access.oauth.jwksUri,
          },
        }),
        allowOrigins: spec.access.allowOrigins,
      },
    }),
    ...(spec.limits.redisEnv !== undefined && { redisEnv: spec.limits.redisEnv }),
  });
}

/**
 * base-url must be absolute http(s), without credentials, query or fragment; the
 * result is origin + prefix with no trailing slash, the fixed part of every URL.
 */
function normalizeBaseUrl(text: string, at: Position, diag: Diagnostics): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    diag.error('SPEC_BASE_URL', at, ['base-url'], `${JSON.stringify(text)} is not an absolute URL`);
    return undefined;
  }
  const problem =
    url.protocol !== 'http:' && url.protocol !== 'https:'
      ? `scheme ${url.protocol} is not http or https`
      : url.username || url.password
        ? 'credentials belong in `auth`, not in the URL'
        : url.search || url.hash || text.includes('?') || text.includes('#')
          ? 'a base-url takes no query or fragment: use `set { query }`'
          : undefined;
  if (problem) {
    diag.error('SPEC_BASE_URL', at, ['base-url'], `${JSON.stringify(text)}: ${problem}`);
    return undefined;
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function databaseDescriptor(db: DatabaseSpec, file: string): DatabaseDescriptor {
  const common = {
    pool: db.pool,
    statementTimeoutMs: db.statementTimeoutMs,
    checkoutTimeoutMs: db.checkoutTimeoutMs,
  };
  if (db.kind === 'env') return { kind: 'env', env: db.env, ...common };
  const seed =
    db.seed === undefined || isAbsolute(db.seed) ? db.seed : join(dirname(file), db.seed);
  return { kind: 'embedded', ...(seed !== undefined && { seed }), ...common };
}

function upstreamAuth(a: AuthSpec): UpstreamAuth {
  switch (a.kind) {
    case 'bearer':
      return { kind: 'bearer', env: a.env };
    case 'header':
      return { kind: 'header', header: a.header, env: a.env, prefix: a.prefix };
    case 'basic':
      return { kind: 'basic', usernameEnv: a.usernameEnv, passwordEnv: a.passwordEnv };
    case 'query':
      return { kind: 'query', param: a.param, env: a.env };
  }
}

function authHeaderName(a: AuthSpec | undefined): string | undefined {
  if (!a) return undefined;
  if (a.kind === 'bearer' || a.kind === 'basic') return 'Authorization';
  return a.kind === 'header' ? a.header : undefined;
}
