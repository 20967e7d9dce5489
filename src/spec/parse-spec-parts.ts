/** Top-level nodes other than `can` (spec-language.md, "Top-level nodes" and "Access"). */
import type { Diagnostics, Subject } from './diagnostics.js';
import type { NodeReader } from './kdl-reader.js';
import type {
  AccessSpec,
  AuthSpec,
  DatabaseSpec,
  RateLimitSpec,
  RestrictSpec,
} from './spec-types.js';
import { parseDuration, parseRateLimit } from './values.js';

export function parseRateLimitNode(
  c: NodeReader,
  diag: Diagnostics,
  subject: Subject,
): RateLimitSpec | undefined {
  const text = c.string(0, 'a rate such as "60/m"');
  c.finish();
  c.noChildren();
  if (text === undefined) return undefined;
  const rl = parseRateLimit(text);
  if (!rl) {
    diag.error(
      'SPEC_RATE_LIMIT',
      c.argAt(0),
      subject,
      `rate-limit ${JSON.stringify(text)} is not like "60/m" (calls per s, m or h)`,
    );
    return undefined;
  }
  return { ...rl, text, at: c.argAt(0) };
}

export function parseDurationArg(
  c: NodeReader,
  diag: Diagnostics,
  subject: Subject,
): number | undefined {
  const text = c.string(0, 'a duration such as "10s"');
  c.finish();
  c.noChildren();
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === undefined)
    diag.error(
      'SPEC_DURATION',
      c.argAt(0),
      subject,
      `${c.name} ${JSON.stringify(text)} is not a duration like 500ms, 10s, 2m`,
    );
  return ms;
}

export function parseAuth(c: NodeReader, diag: Diagnostics): AuthSpec | undefined {
  const subject = ['auth'];
  const kind = c.string(0, 'a kind: bearer, header, basic or query');
  c.noChildren();
  let auth: AuthSpec | undefined;
  switch (kind) {
    case 'bearer': {
      const env = c.propString('env', true);
      if (env !== undefined) auth = { kind, env, at: c.at };
      break;
    }
    case 'header': {
      const header = c.string(1, 'a header name (auth header "X-Api-Key" env="V")');
      const env = c.propString('env', true);
      const prefix = c.propString('prefix') ?? '';
      if (header !== undefined && env !== undefined) auth = { kind, header, env, prefix, at: c.at };
      break;
    }
    case 'basic': {
      const usernameEnv = c.propString('username-env', true);
      const passwordEnv = c.propString('password-env', true);
      if (usernameEnv !== undefined && passwordEnv !== undefined)
        auth = { kind, usernameEnv, passwordEnv, at: c.at };
      break;
    }
    case 'query': {
      const param = c.string(1, 'a query parameter name (auth query "key" env="V")');
      const env = c.propString('env', true);
      if (param !== undefined && env !== undefined) auth = { kind, param, env, at: c.at };
      break;
    }
    case undefined:
      break;
    default:
      diag.error(
        'SPEC_VALUE_TYPE',
        c.argAt(0),
        subject,
        `unknown auth kind ${JSON.stringify(kind)} (known: bearer, header, basic, query)`,
      );
      return undefined;
  }
  c.finish();
  return auth;
}

export function parseDatabase(c: NodeReader, diag: Diagnostics): DatabaseSpec | undefined {
  const subject = ['database'];
  c.noChildren();
  const mode = c.optionalString(0, 'a mode ("embedded")');
  const pool = c.propInteger('pool', 1) ?? 10;
  const duration = (prop: string, fallback: number): number => {
    const text = c.propString(prop);
    if (text === undefined) return fallback;
    const ms = parseDuration(text);
    if (ms !== undefined) return ms;
    diag.error(
      'SPEC_DURATION',
      c.propAt(prop),
      subject,
      `${prop} ${JSON.stringify(text)} is not a duration like 500ms, 10s, 2m`,
    );
    return fallback;
  };
  const statementTimeoutMs = duration('statement-timeout', 10_000);
  const checkoutTimeoutMs = duration('checkout-timeout', 1_000);
  const common = { pool, statementTimeoutMs, checkoutTimeoutMs, at: c.at };
  if (mode === 'embedded') {
    const seed = c.propString('seed');
    c.finish();
    return { kind: 'embedded', ...(seed !== undefined && { seed }), ...common };
  }
  if (mode !== undefined) {
    diag.error(
      'SPEC_VALUE_TYPE',
      c.argAt(0),
      subject,
      `unknown database mode ${JSON.stringify(mode)}; use env="VAR" or embedded`,
    );
    c.finish();
    return undefined;
  }
  const env = c.propString('env', true);
  c.finish();
  return env === undefined ? undefined : { kind: 'env', env, ...common };
}

export function parseRestrict(c: NodeReader, diag: Diagnostics): RestrictSpec[] {
  c.finish();
  const out: RestrictSpec[] = [];
  const seen = new Set<string>();
  for (const r of c.children(['restrict'])) {
    const subject = [`restrict ${r.name}`];
    r.noChildren();
    if (seen.has(r.name)) {
      diag.error(
        'SPEC_DUPLICATE',
        r.at,
        ['restrict'],
        `${r.name} is restricted twice; list every value in one line`,
      );
      continue;
    }
    seen.add(r.name);
    const values = r.scalarArgs();
    const patternText = r.propString('pattern');
    r.finish();
    for (const v of values) {
      if (v.value === null)
        diag.error('SPEC_VALUE_TYPE', v.at, subject, 'an allowed value cannot be #null');
    }
    if (values.length === 0 && patternText === undefined) {
      diag.error('SPEC_MISSING', r.at, subject, 'give the allowed values or pattern="..."');
      continue;
    }
    out.push({
      argument: r.name,
      at: r.at,
      ...(values.length > 0 && { values }),
      ...(patternText !== undefined && {
        pattern: { source: patternText, at: r.propAt('pattern') },
      }),
    });
  }
  return out;
}

export function parseAccess(c: NodeReader, diag: Diagnostics): AccessSpec {
  c.finish();
  const subject = ['access'];
  const apiKeys: { env: string; scopes: string[]; at: { line: number; column: number } }[] = [];
  const allowOrigins: string[] = [];
  let oauth: AccessSpec['oauth'];
  for (const a of c.children(subject)) {
    a.noChildren();
    switch (a.name) {
      case 'api-key': {
        const env = a.propString('env', true);
        const scopes = (a.propString('scopes') ?? '').split(/\s+/).filter(Boolean);
        a.finish();
        if (env !== undefined) apiKeys.push({ env, scopes, at: a.at });
        break;
      }
      case 'oauth': {
        const issuer = a.propString('issuer', true);
        const audience = a.propString('audience', true);
        const jwksUri = a.propString('jwks-uri', true);
        a.finish();
        if (oauth) diag.error('SPEC_DUPLICATE', a.at, subject, '`oauth` is given twice');
        else if (issuer !== undefined && audience !== undefined && jwksUri !== undefined) {
          oauth = { issuer, audience, jwksUri, at: a.at };
        }
        break;
      }
      case 'allow-origin':
        for (const o of a.stringArgs('an origin')) allowOrigins.push(o.value);
        a.finish();
        break;
      default:
        diag.error(
          'SPEC_UNKNOWN_NODE',
          a.at,
          subject,
          `unknown node \`${a.name}\` in access (known: api-key, oauth, allow-origin)`,
        );
    }
  }
  return { apiKeys, allowOrigins, at: c.at, ...(oauth && { oauth }) };
}
