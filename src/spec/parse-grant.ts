/** `can <verb> <resource> { ... }` → GrantSpec (spec-language.md, "Grants"). */
import type { Diagnostics, Position } from './diagnostics.js';
import { NodeReader } from './kdl-reader.js';
import { parseFields } from './parse-field.js';
import { toolName } from './naming.js';
import type { BodySpec, ExclusiveSpec, FieldBlockSpec, GrantSpec, SetSpec } from './spec-types.js';
import { parseDurationArg, parseRateLimitNode } from './parse-spec-parts.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const ONCE = new Set([
  'describe',
  'title',
  'method',
  'path',
  'query',
  'body',
  'set',
  'sql',
  'params',
  'max-rows',
  'rate-limit',
  'timeout',
  'max-bytes',
  'budget-bytes',
]);

export function parseGrant(r: NodeReader, diag: Diagnostics): GrantSpec | undefined {
  const verb = r.string(0, 'a verb (can list issues)');
  const resource = r.string(1, 'a resource (can list issues)');
  r.finish();
  if (verb === undefined || resource === undefined) return undefined;
  const label = `grant ${toolName(verb, resource)}`;
  const subject = [label];
  const grant: Mutable<GrantSpec> = {
    verb,
    verbAt: r.argAt(0),
    resource,
    at: r.at,
    set: [],
    scopes: [],
  };
  const seen = new Map<string, Position>();
  const scopes: string[] = [];
  const set: SetSpec[] = [];

  for (const c of r.children(subject)) {
    if (ONCE.has(c.name)) {
      const first = seen.get(c.name);
      if (first) {
        diag.error(
          'SPEC_DUPLICATE',
          c.at,
          subject,
          `\`${c.name}\` is given twice (first at line ${first.line})`,
        );
        continue;
      }
      seen.set(c.name, c.at);
    }
    switch (c.name) {
      case 'describe':
      case 'title': {
        const text = c.string(0, 'a text');
        c.finish();
        c.noChildren();
        if (text !== undefined) grant[c.name] = text;
        break;
      }
      case 'method': {
        const m = c.string(0, 'an HTTP method');
        c.finish();
        c.noChildren();
        if (m !== undefined) grant.method = { value: m, at: c.argAt(0) };
        break;
      }
      case 'path': {
        const template = c.string(0, 'a path template');
        c.finish();
        const params = parseFields(c.children(subject), {
          diag,
          subject,
          label: 'path param',
          depth: 0,
        });
        if (template !== undefined) grant.path = { template, at: c.argAt(0), params };
        break;
      }
      case 'query':
        grant.query = parseBlock(c, diag, subject, 'query field');
        break;
      case 'body': {
        const enc = c.propString('encoding') ?? 'json';
        if (enc !== 'json' && enc !== 'form') {
          diag.error(
            'SPEC_VALUE_TYPE',
            c.propAt('encoding'),
            subject,
            `body encoding=${JSON.stringify(enc)} must be "json" or "form"`,
          );
        }
        const block = parseBlock(c, diag, subject, 'body field');
        const body: BodySpec = { ...block, encoding: enc === 'form' ? 'form' : 'json' };
        grant.body = body;
        break;
      }
      case 'params':
        grant.params = parseBlock(c, diag, subject, 'param');
        break;
      case 'set':
        c.finish();
        grant.setAt = c.at;
        for (const s of c.children(subject)) set.push(...parseSet(s, diag, subject));
        break;
      case 'sql': {
        const statement = c.string(0, 'an SQL statement');
        c.finish();
        c.noChildren();
        if (statement !== undefined) grant.sql = { statement, at: c.argAt(0) };
        break;
      }
      case 'max-rows':
      case 'max-bytes':
      case 'budget-bytes': {
        const n = c.integer(0, `${c.name} value`, 1);
        c.finish();
        c.noChildren();
        if (n === undefined) break;
        if (c.name === 'max-rows') {
          grant.maxRows = n;
          grant.maxRowsAt = c.at;
        } else if (c.name === 'max-bytes') grant.maxBytes = n;
        else grant.budgetBytes = n;
        break;
      }
      case 'scope':
        for (const s of c.stringArgs('a scope')) scopes.push(s.value);
        if (c.argEntries().length === 0)
          diag.error('SPEC_MISSING', c.at, subject, '`scope` needs a scope name');
        c.finish();
        c.noChildren();
        break;
      case 'rate-limit': {
        const rl = parseRateLimitNode(c, diag, subject);
        if (rl) grant.rateLimit = rl;
        break;
      }
      case 'timeout': {
        const ms = parseDurationArg(c, diag, subject);
        if (ms !== undefined) grant.timeoutMs = ms;
        break;
      }
      default:
        diag.error(
          'SPEC_UNKNOWN_NODE',
          c.at,
          subject,
          `unknown node \`${c.name}\` in a grant (known: describe, title, method, path, query, body, set, sql, params, max-rows, scope, rate-limit, timeout, max-bytes, budget-bytes)`,
        );
    }
  }
  grant.scopes = scopes;
  grant.set = set;
  return grant;
}

function parseBlock(
  c: NodeReader,
  diag: Diagnostics,
  subject: readonly string[],
  label: string,
): FieldBlockSpec {
  c.finish();
  const children = c.children(subject);
  const exclusive: ExclusiveSpec[] = [];
  for (const x of children.filter((x) => x.name === 'exclusive')) {
    const names = x.stringArgs('a field name');
    if (names.length < 2)
      diag.error('SPEC_EXCLUSIVE', x.at, subject, '`exclusive` names at least two fields');
    x.finish();
    x.noChildren();
    exclusive.push({ names, at: x.at });
  }
  const fields = parseFields(children, { diag, subject, label, depth: 0 }, new Set(['exclusive']));
  return { at: c.at, fields, exclusive };
}

function parseSet(s: NodeReader, diag: Diagnostics, subject: readonly string[]): SetSpec[] {
  if (s.name !== 'query' && s.name !== 'header' && s.name !== 'body') {
    diag.error(
      'SPEC_UNKNOWN_NODE',
      s.at,
      subject,
      `unknown node \`${s.name}\` in set (known: query, header, body)`,
    );
    return [];
  }
  const key = s.string(0, `a ${s.name} name`);
  const entry = s.argEntries()[1];
  if (!entry) {
    diag.error('SPEC_MISSING', s.at, subject, `set ${s.name} needs a value`);
    s.finish();
    return [];
  }
  s.scalarArgs();
  s.finish();
  s.noChildren();
  if (s.argEntries().length > 2) {
    diag.error(
      'SPEC_UNKNOWN_PROPERTY',
      s.argAt(2),
      subject,
      `set ${s.name} takes a name and one value`,
    );
  }
  const value = entry.getValue();
  if (s.name === 'header' && typeof value !== 'string') {
    diag.error('SPEC_VALUE_TYPE', s.argAt(1), subject, `set header value must be a string`);
    return [];
  }
  if (key === undefined) return [];
  return [{ target: s.name, key, value, at: s.at }];
}
