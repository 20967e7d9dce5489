/** One GrantSpec → one frozen Descriptor (spec-language.md, "Grants"). */
import type { Diagnostics } from './diagnostics.js';
import type { Descriptor, UpstreamAuth } from './descriptor.js';
import { compileHttp } from './compile-http.js';
import { compileSql } from './compile-sql.js';
import { deepFreeze } from './freeze.js';
import { GrantBuilder, type RestrictEntry } from './grant-builder.js';
import { defaultTitle, TOOL_NAME, toolName } from './naming.js';
import { HTTP_OUTPUT_SCHEMA, SQL_OUTPUT_SCHEMA } from './output-schema.js';
import type { GrantSpec } from './spec-types.js';
import {
  behaviourOf,
  HTTP_METHODS,
  isHttpMethod,
  KNOWN_VERBS,
  methodOfVerb,
  type HttpMethod,
} from './verbs.js';

export const DEFAULT_MAX_BYTES = 262_144;
export const DEFAULT_BUDGET_BYTES = 40_000;
export const DEFAULT_TIMEOUT_MS = 10_000;

export interface SpecContext {
  readonly diag: Diagnostics;
  readonly file: string;
  /** Normalized base-url, or undefined when the spec has none (or a bad one). */
  readonly baseUrl?: string;
  readonly hasBaseUrl: boolean;
  readonly hasDatabase: boolean;
  /** from-claim needs verified tokens to take claims from. */
  readonly hasOauth: boolean;
  readonly headers: readonly (readonly [string, string])[];
  readonly auth?: UpstreamAuth;
  readonly authHeader?: string;
  readonly timeoutMs: number;
  /** The database's statement-timeout: a sql grant's deadline unless it has its own. */
  readonly statementTimeoutMs: number;
  readonly maxBytes: number;
  readonly budgetBytes: number;
  readonly rateLimit?: { readonly count: number; readonly windowMs: number };
  readonly restrict: readonly RestrictEntry[];
  /** Restrict entries that matched some grant's argument (for the unused warning). */
  readonly restrictUsed: Set<string>;
}

export function compileGrant(g: GrantSpec, ctx: SpecContext): Descriptor | undefined {
  const { diag } = ctx;
  const name = toolName(g.verb, g.resource);
  const subject = [`grant ${name}`];
  let ok = true;
  if (!TOOL_NAME.test(name)) {
    diag.error(
      'SPEC_TOOL_NAME',
      g.at,
      subject,
      `tool name ${JSON.stringify(name)} must match ${TOOL_NAME.source}`,
    );
    ok = false;
  }

  let method: HttpMethod | undefined;
  if (g.method) {
    if (isHttpMethod(g.method.value)) method = g.method.value;
    else
      diag.error(
        'SPEC_VALUE_TYPE',
        g.method.at,
        subject,
        `method ${JSON.stringify(g.method.value)} is not one of ${HTTP_METHODS.join(', ')}`,
      );
  } else {
    method = methodOfVerb(g.verb);
    if (!method) {
      diag.error(
        'SPEC_UNKNOWN_VERB',
        g.verbAt,
        subject,
        `unknown verb ${JSON.stringify(g.verb)}; use one of ${KNOWN_VERBS.join(', ')}, or add \`method "POST"\` (or GET, PUT, PATCH, DELETE)`,
      );
    }
  }
  // Annotations follow the verb's meaning when the verb is known (`cancel` sent as
  // POST is still destructive); `method` supplies them only for verbs outside the table.
  const behaviour = behaviourOf(methodOfVerb(g.verb) ?? method ?? 'POST');
  const isSql = g.sql !== undefined;
  const isHttp = g.path !== undefined;

  if (isSql && isHttp) {
    diag.error(
      'SPEC_GRANT_KIND',
      g.sql!.at,
      subject,
      'a grant has either a path (HTTP) or a sql statement (Postgres), not both',
    );
    return undefined;
  }
  if (!isSql && !isHttp) {
    diag.error(
      'SPEC_GRANT_KIND',
      g.at,
      subject,
      'a grant needs `path` (an HTTP operation) or `sql` (a Postgres statement)',
    );
    return undefined;
  }
  const misplaced = isSql
    ? [g.query && ['query', g.query.at], g.body && ['body', g.body.at], g.setAt && ['set', g.setAt]]
    : [g.params && ['params', g.params.at], g.maxRowsAt && ['max-rows', g.maxRowsAt]];
  for (const m of misplaced) {
    if (m)
      diag.error(
        'SPEC_GRANT_KIND',
        m[1] as { line: number; column: number },
        subject,
        `\`${m[0] as string}\` belongs to ${isSql ? 'HTTP' : 'sql'} grants; this grant is ${isSql ? 'sql' : 'HTTP'}`,
      );
  }

  const b = new GrantBuilder(diag, subject);
  let backend: Descriptor['backend'] | undefined;
  if (isSql) {
    if (!ctx.hasDatabase) {
      diag.error(
        'SPEC_NO_DATABASE',
        g.sql!.at,
        subject,
        'a sql grant needs a top-level `database env="DATABASE_URL"` (or `database embedded`)',
      );
      ok = false;
    }
    backend = compileSql(g, diag, subject, behaviour.readOnly, b, ctx.statementTimeoutMs);
  } else {
    if (!ctx.hasBaseUrl) {
      diag.error(
        'SPEC_NO_BASE_URL',
        g.path!.at,
        subject,
        'an HTTP grant needs a top-level `base-url "https://..."`',
      );
      ok = false;
    }
    backend = compileHttp(
      g,
      {
        diag,
        subject,
        baseUrl: ctx.baseUrl ?? '',
        method: method ?? 'POST',
        headers: ctx.headers,
        ...(ctx.auth && { auth: ctx.auth }),
        ...(ctx.authHeader && { authHeader: ctx.authHeader }),
        timeoutMs: ctx.timeoutMs,
      },
      b,
    );
  }
  const restrict = b.restrictions(ctx.restrict, ctx.restrictUsed);
  for (const f of b.fieldOf.values()) {
    if (f.fromClaim && !ctx.hasOauth) {
      diag.error(
        'SPEC_MISSING',
        f.fromClaim.at,
        [...subject, `argument ${f.name}`],
        'from-claim takes the value from a verified token: add `access { oauth ... }`',
      );
    }
  }
  if (!backend || !ok || !method) return undefined;

  const title = g.title ?? defaultTitle(g.verb, g.resource);
  const rateLimit = g.rateLimit ?? ctx.rateLimit;
  return deepFreeze<Descriptor>({
    name,
    verb: g.verb,
    resource: g.resource,
    title,
    ...(g.describe !== undefined && { description: g.describe }),
    annotations: {
      title,
      readOnlyHint: behaviour.readOnly,
      destructiveHint: behaviour.destructive,
      idempotentHint: behaviour.idempotent,
      openWorldHint: !isSql,
    },
    inputSchema: b.inputSchema(),
    outputSchema: isSql ? SQL_OUTPUT_SCHEMA : HTTP_OUTPUT_SCHEMA,
    arguments: b.arguments,
    exclusive: b.exclusive,
    restrict,
    scopes: [...new Set(g.scopes)],
    limits: {
      maxBytes: g.maxBytes ?? ctx.maxBytes,
      budgetBytes: g.budgetBytes ?? ctx.budgetBytes,
      ...(rateLimit && { rateLimit: { count: rateLimit.count, windowMs: rateLimit.windowMs } }),
    },
    backend,
    source: { file: ctx.file, line: g.at.line, column: g.at.column },
  });
}
