/**
 * KDL text → typed Spec. Checks shape only: known nodes and properties, value types,
 * nodes that may appear once. Meaning (tool names, templates, SQL, patterns) is the
 * compiler's job, so that one file reports every error it has in one run.
 */
import { InvalidKdlError, parse, type Document } from '@bgotink/kdl';
import { Diagnostics, type Position } from './diagnostics.js';
import { NodeReader } from './kdl-reader.js';
import { parseGrant } from './parse-grant.js';
import {
  parseAccess,
  parseAuth,
  parseDatabase,
  parseDurationArg,
  parseRateLimitNode,
  parseRestrict,
} from './parse-spec-parts.js';
import type { GrantSpec, RestrictSpec, Spec } from './spec-types.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const TOP_ONCE = new Set([
  'wrap',
  'base-url',
  'auth',
  'timeout',
  'database',
  'restrict',
  'limits',
  'access',
  'rate-limit',
]);
const TOP_KNOWN =
  'wrap, base-url, auth, header, timeout, database, restrict, limits, rate-limit, access, can';

export interface ParseResult {
  /** Undefined only when the text is not KDL at all. */
  readonly spec?: Spec;
  readonly diagnostics: Diagnostics;
}

export function parseSpec(text: string, file: string): ParseResult {
  const diag = new Diagnostics(file);
  let doc: Document;
  try {
    doc = parse(text, { as: 'document', storeLocations: true });
  } catch (err) {
    if (!(err instanceof InvalidKdlError)) throw err;
    reportSyntax(err, diag);
    return { diagnostics: diag };
  }

  const spec: Mutable<Spec> = {
    file,
    wrap: { name: '', version: '0.0.0' },
    headers: [],
    restrict: [],
    limits: {},
    grants: [],
  };
  const grants: GrantSpec[] = [];
  const headers: Mutable<Spec['headers']>[number][] = [];
  let restrict: RestrictSpec[] = [];
  const seen = new Map<string, Position>();
  let wrapSeen = false;

  for (const node of doc.nodes) {
    const r = new NodeReader(node, diag, []);
    if (TOP_ONCE.has(r.name)) {
      const first = seen.get(r.name);
      if (first) {
        diag.error(
          'SPEC_DUPLICATE',
          r.at,
          [],
          `\`${r.name}\` may appear once (first at line ${first.line})`,
        );
        continue;
      }
      seen.set(r.name, r.at);
    }
    switch (r.name) {
      case 'wrap': {
        wrapSeen = true;
        const name = r.string(0, 'a server name (wrap "github-triage")');
        const version = r.propString('version', true) ?? '0.0.0';
        r.finish();
        const w: Mutable<Spec['wrap']> = { name: name ?? '', version };
        for (const c of r.children(['wrap'])) {
          if (c.name === 'title' || c.name === 'describe') {
            const t = c.string(0, 'a text');
            c.finish();
            c.noChildren();
            if (t !== undefined) w[c.name] = t;
          } else {
            diag.error(
              'SPEC_UNKNOWN_NODE',
              c.at,
              ['wrap'],
              `unknown node \`${c.name}\` in wrap (known: title, describe)`,
            );
          }
        }
        spec.wrap = w;
        break;
      }
      case 'base-url': {
        const url = r.string(0, 'an absolute http(s) URL');
        const connections = r.propInteger('connections', 1);
        r.finish();
        r.noChildren();
        if (url !== undefined)
          spec.baseUrl = {
            url,
            at: r.argAt(0),
            ...(connections !== undefined && { connections }),
          };
        break;
      }
      case 'auth': {
        const auth = parseAuth(r, diag);
        if (auth) spec.auth = auth;
        break;
      }
      case 'header': {
        const name = r.string(0, 'a header name');
        const value = r.string(1, 'a header value');
        r.finish();
        r.noChildren();
        if (name !== undefined && value !== undefined) headers.push({ name, value, at: r.at });
        break;
      }
      case 'timeout': {
        const ms = parseDurationArg(r, diag, []);
        if (ms !== undefined) spec.timeoutMs = ms;
        break;
      }
      case 'database': {
        const db = parseDatabase(r, diag);
        if (db) spec.database = db;
        break;
      }
      case 'restrict':
        restrict = parseRestrict(r, diag);
        break;
      case 'limits': {
        const maxBytes = r.propInteger('max-bytes', 1);
        const budgetBytes = r.propInteger('budget-bytes', 1);
        const redisEnv = r.propString('redis-env');
        r.finish();
        r.noChildren();
        spec.limits = {
          ...(maxBytes !== undefined && { maxBytes }),
          ...(budgetBytes !== undefined && { budgetBytes }),
          ...(redisEnv !== undefined && { redisEnv }),
        };
        break;
      }
      case 'rate-limit': {
        const rl = parseRateLimitNode(r, diag, []);
        if (rl) spec.rateLimit = rl;
        break;
      }
      case 'access':
        spec.access = parseAccess(r, diag);
        break;
      case 'can': {
        const g = parseGrant(r, diag);
        if (g) grants.push(g);
        break;
      }
      default:
        diag.error(
          'SPEC_UNKNOWN_NODE',
          r.at,
          [],
          `unknown top-level node \`${r.name}\` (known: ${TOP_KNOWN})`,
        );
    }
  }
  if (!wrapSeen)
    diag.error(
      'SPEC_MISSING',
      { line: 1, column: 1 },
      [],
      'the spec needs `wrap "<server name>"` once',
    );
  spec.grants = grants;
  spec.headers = headers;
  spec.restrict = restrict;
  return { spec, diagnostics: diag };
}

function reportSyntax(err: InvalidKdlError, diag: Diagnostics): void {
  // The parser may carry several errors (`errors`) or one with a start position.
  const e = err as InvalidKdlError & {
    start?: Position;
    errors?: (InvalidKdlError & { start?: Position })[];
  };
  const all = e.errors && e.errors.length > 0 ? e.errors : [e];
  for (const one of all) {
    const message = one.message.replace(/ at \d+:\d+$/, '');
    diag.error('SPEC_SYNTAX', one.start, [], `invalid KDL: ${message}`);
  }
}
