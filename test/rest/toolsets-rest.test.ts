/**
 * Toolsets over REST (spec-language.md, "Toolsets"): GET /api
 * and GET /openapi.json with `?toolset=<name>` list and describe only that toolset's
 * members, as each API key's scopes allow; GET /api without it names every toolset; a
 * name no toolset has (or an empty or repeated parameter) is 404 NOT_FOUND naming it and
 * the spec's toolsets, after the credential check. A real gateway on 127.0.0.1:0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { buildOpenApi } from '../../src/projection/rest/openapi.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import type { Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const FULL_KEY = 'toolsets-rest-full-8d21c4';
const READER_KEY = 'toolsets-rest-reader-3f90ab';
const ENV = { FULL_KEY, READER_KEY };
const full = { authorization: `Bearer ${FULL_KEY}` };
const reader = { authorization: `Bearer ${READER_KEY}` };

const TOOLSETS = `
toolset "triage" {
    describe "Read issues and comment on them."
    tools "create_comment" "list_issues"
    tools "get_issue"
    resources "docs://handbook"
    prompts "triage-issue"
}
toolset "lookups" {
    tools "get_*"
}
toolset "label-admin" {
    tools "delete_label"
}`;

function spec(upstream: string, toolsets = TOOLSETS): string {
  return `
wrap "toolsets-rest" version="1.2.0" {
    title "Issue desk"
    describe "Issues and their labels."
}
base-url "${upstream}"
access {
    api-key env="FULL_KEY" scopes="issues:read issues:write labels:read labels:write"
    api-key env="READER_KEY" scopes="issues:read"
}
can list issues {
    describe "Every open issue."
    path "/issues"
    scope "issues:read"
}
can get issue {
    path "/issues/{id}"
    scope "issues:read"
}
can create comment {
    path "/issues/{id}/comments"
    body { text "string" required=#true }
    scope "issues:write"
}
can get label {
    path "/labels/{name}"
    scope "labels:read"
}
can delete label {
    path "/labels/{name}"
    scope "labels:write"
}
resource "docs://handbook" text="Be kind." describe="The handbook."
resource "desk://issues/{id}" from="get_issue"
prompt "triage-issue" {
    argument "id" required=#true
    message "user" "Triage issue {id}."
}
${toolsets}
`;
}

type Listing = Record<string, unknown>;
type Named = { name: string };

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) as Listing };
}

const names = (list: unknown): string[] => (list as Named[]).map((x) => x.name);

let upstream: Upstream;
let gw: TestGateway;

useGatewayOnUpstream(spec, { env: ENV }, (s) => ({ upstream, gw } = s));

describe('GET /api?toolset=<name>', () => {
  it('lists only the toolset’s members, in spec order, with the entries of the whole list', async () => {
    const whole = (await get(`${gw.url}/api`, full)).json;
    const r = await get(`${gw.url}/api?toolset=triage`, full);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('private, max-age=60');
    expect(Object.keys(r.json)).toEqual([
      'toolset',
      'tools',
      'resources',
      'resourceTemplates',
      'prompts',
    ]);
    expect(r.json.toolset).toEqual({
      name: 'triage',
      description: 'Read issues and comment on them.',
      path: '/mcp/triage',
    });
    // The spec's order, not the order the toolset names them in.
    expect(names(r.json.tools)).toEqual(['list_issues', 'get_issue', 'create_comment']);
    const entry = (list: unknown, name: string) => (list as Named[]).find((t) => t.name === name);
    for (const t of r.json.tools as Named[]) expect(t).toEqual(entry(whole.tools, t.name));
    expect(r.json.resources).toEqual([entry(whole.resources, 'handbook')]);
    expect(r.json.resourceTemplates).toEqual([]);
    expect(names(r.json.prompts)).toEqual(['triage-issue']);
  });

  it('leaves out the members the caller’s scopes do not allow', async () => {
    const r = await get(`${gw.url}/api?toolset=triage`, reader);
    expect(r.status).toBe(200);
    expect(names(r.json.tools)).toEqual(['list_issues', 'get_issue']);
    expect(names((await get(`${gw.url}/api?toolset=lookups`, reader)).json.tools)).toEqual([
      'get_issue',
    ]);
    // A toolset the reader may call nothing of: its listing is empty, not refused.
    const none = await get(`${gw.url}/api?toolset=label-admin`, reader);
    expect(none.status).toBe(200);
    expect(none.json.tools).toEqual([]);
    expect(names((await get(`${gw.url}/api?toolset=lookups`, full)).json.tools)).toEqual([
      'get_issue',
      'get_label',
    ]);
  });

  it('names resources and prompts only when the toolset has members of that kind', async () => {
    const r = await get(`${gw.url}/api?toolset=label-admin`, full);
    expect(Object.keys(r.json)).toEqual(['toolset', 'tools']);
    expect(r.json.toolset).toEqual({ name: 'label-admin', path: '/mcp/label-admin' });
    expect(names(r.json.tools)).toEqual(['delete_label']);
  });

  it('ignores the other query parameters, as GET /api does', async () => {
    const plain = await get(`${gw.url}/api`, full);
    expect((await get(`${gw.url}/api?page=2&Toolset=lookups`, full)).text).toBe(plain.text);
    const triage = await get(`${gw.url}/api?toolset=triage`, full);
    expect((await get(`${gw.url}/api?x=1&toolset=tri%61ge`, full)).text).toBe(triage.text);
  });

  it('is 404 NOT_FOUND for a name no toolset has, an empty name or a repeated parameter, naming the toolsets', async () => {
    const toolsets = "the spec's toolsets are triage, lookups, label-admin";
    const cases: [string, string][] = [
      ['toolset=tirage', `no toolset named "tirage"; ${toolsets}`],
      ['toolset=', `no toolset named ""; ${toolsets}`],
      ['toolset', `no toolset named ""; ${toolsets}`],
      ['toolset=__proto__', `no toolset named "__proto__"; ${toolsets}`],
      [`toolset=${'x'.repeat(300)}`, `no toolset named "${'x'.repeat(64)}…"; ${toolsets}`],
      [
        'toolset=triage&toolset=lookups',
        `the toolset parameter is given 2 times ("triage", "lookups"): name one toolset; ${toolsets}`,
      ],
      [
        'toolset=a&toolset=b&toolset=c&toolset=d&toolset=e',
        `the toolset parameter is given 5 times ("a", "b", "c" and 2 more): name one toolset; ${toolsets}`,
      ],
    ];
    for (const [query, message] of cases)
      for (const path of ['/api', '/openapi.json']) {
        const r = await get(`${gw.url}${path}?${query}`, full);
        expect(r.status, `${path}?${query}`).toBe(404);
        expect(r.json, `${path}?${query}`).toEqual({ error: { code: 'NOT_FOUND', message } });
      }
  });

  it('asks for a credential first: a stranger gets 401 whether or not the toolset exists', async () => {
    for (const query of ['toolset=triage', 'toolset=nope']) {
      for (const path of ['/api', '/openapi.json']) {
        const r = await fetch(`${gw.url}${path}?${query}`);
        expect(r.status).toBe(401);
        expect(await r.text()).not.toContain('triage');
      }
    }
  });
});

describe('GET /api', () => {
  it('names every toolset with its describe and path, in spec order, to every caller', async () => {
    const expected = [
      { name: 'triage', description: 'Read issues and comment on them.', path: '/mcp/triage' },
      { name: 'lookups', path: '/mcp/lookups' },
      { name: 'label-admin', path: '/mcp/label-admin' },
    ];
    const r = await get(`${gw.url}/api`, full);
    expect(Object.keys(r.json)).toEqual([
      'tools',
      'resources',
      'resourceTemplates',
      'prompts',
      'toolsets',
    ]);
    expect(r.json.toolsets).toEqual(expected);
    // The reader may call nothing in two of them: they are still named.
    expect((await get(`${gw.url}/api`, reader)).json.toolsets).toEqual(expected);
  });
});

describe('GET /openapi.json?toolset=<name>', () => {
  const paths = (doc: Listing) => Object.keys(doc.paths as object);

  it('describes exactly the members the caller may call, read and get, and says which toolset', async () => {
    const r = await get(`${gw.url}/openapi.json?toolset=triage`, full);
    expect(r.status).toBe(200);
    expect(paths(r.json)).toEqual([
      '/api/list_issues',
      '/api/get_issue',
      '/api/create_comment',
      '/api/resources/read',
      '/api/prompts/get',
    ]);
    expect(r.json.info).toEqual({
      title: 'Issue desk (toolset triage)',
      version: '1.2.0',
      description: 'Read issues and comment on them.\n\nIssues and their labels.',
    });
    // The read route's body takes the member resources only.
    const read = (r.json.paths as Record<string, { post: Listing }>)['/api/resources/read']!;
    expect(JSON.stringify(read.post.requestBody)).toContain('docs://handbook');
    expect(JSON.stringify(read.post.requestBody)).not.toContain('desk://issues');
    expect(await new Validator().validate(r.json)).toEqual({ valid: true });

    expect(paths((await get(`${gw.url}/openapi.json?toolset=triage`, reader)).json)).toEqual([
      '/api/list_issues',
      '/api/get_issue',
      '/api/resources/read',
      '/api/prompts/get',
    ]);
    const admin = (await get(`${gw.url}/openapi.json?toolset=label-admin`, full)).json;
    expect(paths(admin)).toEqual(['/api/delete_label']);
    expect(admin.info).toEqual({
      title: 'Issue desk (toolset label-admin)',
      version: '1.2.0',
      description: 'Issues and their labels.',
    });
    expect(await new Validator().validate(admin)).toEqual({ valid: true });
  });

  it('leaves the whole document as it is without the parameter, whichever was asked first', async () => {
    const c = compileSpecText(spec(upstream.url), 'test.mcp.kdl').compiled!;
    const whole = JSON.stringify(buildOpenApi(c, { serverUrl: gw.url }));
    const lookups = await get(`${gw.url}/openapi.json?toolset=lookups`, full);
    expect(paths(lookups.json)).toEqual(['/api/get_issue', '/api/get_label']);
    expect((await get(`${gw.url}/openapi.json`, full)).text).toBe(whole);
    expect((await get(`${gw.url}/openapi.json?toolset=lookups`, full)).text).toBe(lookups.text);
  });
});

describe('a spec without toolsets', () => {
  let bare: TestGateway;
  beforeAll(async () => {
    bare = await startGateway(spec(upstream.url, ''), { env: ENV });
  });
  afterAll(async () => {
    await bare?.close();
  });

  it('keeps GET /api as it was, and refuses any toolset as none', async () => {
    const r = await get(`${bare.url}/api`, full);
    expect(Object.keys(r.json)).toEqual(['tools', 'resources', 'resourceTemplates', 'prompts']);
    const refused = await get(`${bare.url}/api?toolset=triage`, full);
    expect(refused.status).toBe(404);
    expect(refused.json).toEqual({
      error: { code: 'NOT_FOUND', message: 'no toolset named "triage"; this spec has no toolsets' },
    });
  });
});
