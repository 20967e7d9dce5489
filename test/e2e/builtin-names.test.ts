/**
 * Arguments named like built-in object members (`toString`, `constructor`, ...) are
 * ordinary arguments on every path of a call, over REST and MCP: left out, given,
 * restricted, defaulted, in an exclusive group, bound from a claim, in the path, the
 * query, the body (nested too) and a sql param. A parsed JSON object inherits these
 * names, so a lookup that is not an own-member lookup finds a function there.
 */
import { describe, expect, it } from 'vitest';
import { Gateway } from '../../src/engine/gateway.js';
import { withoutNumberTexts } from '../../src/json/number-text.js';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { callTool } from '../helpers/call-tool.js';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { okJson, type Upstream } from '../helpers/upstream.js';
import { scopeFor } from '../helpers/scope.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const NAMES = [
  'toString',
  'constructor',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupSetter__',
] as const;

function grants(n: string, i: number): string {
  return `
can get p${i} {
    describe "Path param ${n}."
    path "/p/{${n}}"
}
can list q${i} {
    describe "Query field ${n}, exclusive with other."
    path "/q"
    query {
        ${n} "string"
        other "string"
        exclusive "${n}" "other"
    }
}
can list d${i} {
    describe "Query field ${n} with a default."
    path "/d"
    query {
        ${n} "string" default="b"
    }
}
can create b${i} {
    describe "Body field ${n}, at the top and nested."
    path "/b"
    body {
        ${n} "string"
        obj "object" {
            ${n} "string"
            k "string" default="z"
        }
        items "object[]" {
            ${n} "string"
        }
    }
}
can query s${i} {
    describe "Sql param ${n}."
    sql "SELECT $1::text AS v"
    params {
        ${n} "string"
    }
}
`;
}

function spec(upstream: string): string {
  return `
wrap "builtin-names" version="1.0.0"
base-url "${upstream}"
database embedded
restrict {
${NAMES.map((n) => `    ${n} "a" "b"`).join('\n')}
}
${NAMES.map(grants).join('')}
`;
}

interface Answer {
  ok: boolean;
  /** The catalogue code of a refusal. */
  code?: string;
  message?: string;
  result?: unknown;
  /** What the upstream received, when it was called. */
  sent?: { path: string; query: string; body: string };
}

let upstream: Upstream;
let gw: TestGateway;

useGatewayOnUpstream(spec, { answer: okJson }, (s) => ({ upstream, gw } = s));

function sentSince(before: number): Answer['sent'] {
  const got = upstream.requests.slice(before);
  expect(got.length).toBeLessThanOrEqual(1);
  return got[0] && { path: got[0].path, query: got[0].query, body: got[0].body };
}

async function rest(tool: string, args: Record<string, unknown>): Promise<Answer> {
  const before = upstream.requests.length;
  const r = await postJson(`${gw.url}/api/${tool}`, args);
  const sent = sentSince(before);
  if (r.status === 200)
    return { ok: true, result: (r.json as { result: unknown }).result, ...(sent && { sent }) };
  const e = (r.json as { error: { code: string; message: string } }).error;
  return { ok: false, code: e.code, message: e.message, ...(sent && { sent }) };
}

async function mcp(tool: string, args: Record<string, unknown>): Promise<Answer> {
  const before = upstream.requests.length;
  const result = await callTool<{ result: unknown }>(gw.url, tool, args, { era: 'legacy' });
  const sent = sentSince(before);
  if (!result.isError)
    return { ok: true, result: result.structuredContent!.result, ...(sent && { sent }) };
  const text = result.content[0]!.text;
  return { ok: false, code: text.split(':')[0]!, message: text, ...(sent && { sent }) };
}

const SURFACES = [
  ['REST', rest],
  ['MCP', mcp],
] as const;

const CASES = NAMES.flatMap((n, i) => SURFACES.map(([surface, call]) => ({ n, i, surface, call })));

describe.each(CASES)('an argument named $n over $surface', ({ n, i, call }) => {
  it('fills a path segment when given, and is required and restricted like any other', async () => {
    expect((await call(`get_p${i}`, { [n]: 'a' })).sent?.path).toBe('/p/a');
    const missing = await call(`get_p${i}`, {});
    expect(missing).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
    expect(missing.message).toContain(`${n} is required`);
    expect(missing.sent).toBeUndefined();
    const denied = await call(`get_p${i}`, { [n]: 'zzz' });
    expect(denied).toMatchObject({ ok: false, code: 'DENIED_BY_RESTRICT' });
    expect(denied.message).toContain(`argument ${n} is not allowed`);
  });

  it('is left out of the query when omitted, sent when given, and exclusive only when given', async () => {
    expect(await call(`list_q${i}`, {})).toMatchObject({ ok: true, sent: { query: '' } });
    expect(await call(`list_q${i}`, { [n]: 'b' })).toMatchObject({
      ok: true,
      sent: { query: `${n}=b` },
    });
    expect(await call(`list_q${i}`, { other: 'x' })).toMatchObject({
      ok: true,
      sent: { query: 'other=x' },
    });
    const both = await call(`list_q${i}`, { [n]: 'a', other: 'x' });
    expect(both).toMatchObject({ ok: false, code: 'EXCLUSIVE_ARGUMENTS' });
    expect(both.sent).toBeUndefined();
  });

  it('takes its default when omitted', async () => {
    expect(await call(`list_d${i}`, {})).toMatchObject({ ok: true, sent: { query: `${n}=b` } });
    expect(await call(`list_d${i}`, { [n]: 'a' })).toMatchObject({
      ok: true,
      sent: { query: `${n}=a` },
    });
  });

  it('is left out of the body when omitted, at the top and nested, and sent when given', async () => {
    expect(await call(`create_b${i}`, {})).toMatchObject({ ok: true, sent: { body: '{}' } });
    expect(await call(`create_b${i}`, { obj: {}, items: [{}] })).toMatchObject({
      ok: true,
      sent: { body: '{"obj":{"k":"z"},"items":[{}]}' },
    });
    const wrongType = await call(`create_b${i}`, { obj: { [n]: 5 } });
    expect(wrongType).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
    expect(wrongType.message).toContain(`obj.${n} must be string`);
    const given = { [n]: 'a', obj: { [n]: 'x', k: 'y' }, items: [{ [n]: 'c' }] };
    expect(await call(`create_b${i}`, given)).toMatchObject({
      ok: true,
      sent: { body: JSON.stringify(given) },
    });
  });

  it('binds a sql param as null when omitted and as its value when given', async () => {
    expect(await call(`query_s${i}`, {})).toMatchObject({ ok: true, result: [{ v: null }] });
    expect(await call(`query_s${i}`, { [n]: 'b' })).toMatchObject({
      ok: true,
      result: [{ v: 'b' }],
    });
  });
});

describe('a claim named like a built-in object member', () => {
  const CLAIMS_SPEC = (upstreamUrl: string): string => `
wrap "claims" version="1.0.0"
base-url "${upstreamUrl}"
access {
    oauth issuer="https://idp.example.com" audience="https://t.example.com/mcp" jwks-uri="https://idp.example.com/jwks.json"
}
can list c {
    describe "Query bound from claims."
    path "/c"
    query {
        who "string" from-claim="toString"
        constructor "string" from-claim="sub"
    }
}
`;

  it('is missing from a token that lacks it, and bound from a token that has it', async () => {
    const result = compileSpecText(CLAIMS_SPEC(upstream.url), 'claims.mcp.kdl');
    const gateway = await Gateway.prepare(result.compiled!);
    try {
      const op = gateway.view().operation('list_c')!;
      const lacking = await gateway.call(
        op,
        withoutNumberTexts({}),
        scopeFor({
          id: 'u',
          scopes: 'all',
          claims: { sub: 's' },
        }),
      );
      expect(lacking).toMatchObject({ ok: false, error: { code: 'MISSING_CLAIM' } });
      expect(!lacking.ok && lacking.error.message).toContain("which the caller's token lacks");
      const before = upstream.requests.length;
      const bound = await gateway.call(
        op,
        withoutNumberTexts({}),
        scopeFor({
          id: 'u',
          scopes: 'all',
          claims: { sub: 's', toString: 'me' },
        }),
      );
      expect(bound.ok).toBe(true);
      expect(upstream.requests.slice(before).map((r) => r.query)).toEqual(['who=me&constructor=s']);
    } finally {
      await gateway.close();
    }
  });
});
