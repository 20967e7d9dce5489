/**
 * Issue 17, "every rule visible before the call" (spec-language.md, "Shaping results
 * (`pick` and `omit`)"): a `restrict` allowlist is the argument's `enum` (intersected with the
 * field's own), a `restrict` pattern its `pattern` (through `allOf` beside the field's
 * own), in tools/list, GET /api (which the catalog page renders) and /openapi.json alike,
 * and a call outside the rule is still refused by restrict before anything leaves.
 */
import { describe, expect, it } from 'vitest';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { LEGACY } from '../helpers/mcp-wire.js';
import type { Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

function spec(baseUrl: string): string {
  return `
wrap "rules" version="1.0.0"
base-url "${baseUrl}"

restrict {
    owner "acme" "acme-labs"
    state "open" "closed"
    repo pattern="^[a-z][a-z0-9-]*$"
    tag pattern="^t-"
}

can list issues {
    describe "Issues of a repository."
    path "/repos/{owner}/{repo}/issues" {
        repo "string" pattern="^.{1,40}$"
    }
    query {
        state "string" {
            enum "open" "closed" "all"
        }
        tag "string[]"
    }
}
`;
}

const EXPECTED = {
  owner: { type: 'string', enum: ['acme', 'acme-labs'] },
  // The field's own pattern stays; restrict's joins it through allOf. The path param's
  // default length bounds are implied by `^.{1,40}$` and left out.
  repo: { type: 'string', pattern: '^.{1,40}$', allOf: [{ pattern: '^[a-z][a-z0-9-]*$' }] },
  // The field's enum intersected with the allowlist: "all" is not allowed.
  state: { type: 'string', enum: ['open', 'closed'] },
  // A scalar array is restricted per element.
  tag: { type: 'array', items: { type: 'string', pattern: '^t-' } },
};

let upstream: Upstream;
let gw: TestGateway;

useGatewayOnUpstream(spec, {}, (s) => ({ upstream, gw } = s));

type Schema = { properties: Record<string, unknown> };

describe('restrict rules in what a caller reads before calling', () => {
  it('tools/list states them in the inputSchema', async () => {
    const r = await postJson(
      `${gw.url}/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { accept: 'application/json, text/event-stream', 'mcp-protocol-version': LEGACY },
    );
    const tool = (r.json as { result: { tools: { inputSchema: Schema }[] } }).result.tools[0]!;
    expect(tool.inputSchema.properties).toEqual(EXPECTED);
  });

  it('GET /api (what the catalog page renders) states the same', async () => {
    const r = await fetch(`${gw.url}/api`);
    const tool = ((await r.json()) as { tools: { inputSchema: Schema }[] }).tools[0]!;
    expect(tool.inputSchema.properties).toEqual(EXPECTED);
  });

  it('/openapi.json states the same in the request body schema', async () => {
    const r = await fetch(`${gw.url}/openapi.json`);
    const doc = (await r.json()) as {
      paths: Record<
        string,
        { post: { requestBody: { content: { 'application/json': { schema: Schema } } } } }
      >;
    };
    const schema =
      doc.paths['/api/list_issues']!.post.requestBody.content['application/json'].schema;
    expect(schema.properties).toEqual(EXPECTED);
  });
});

describe('a call outside a stated rule', () => {
  it.each([
    ['an owner not listed', { owner: 'other', repo: 'web' }],
    ['a repo the restrict pattern refuses', { owner: 'acme', repo: 'Web' }],
    [
      'a state the field allows but restrict does not',
      { owner: 'acme', repo: 'web', state: 'all' },
    ],
    ['a tag element the pattern refuses', { owner: 'acme', repo: 'web', tag: ['t-a', 'b'] }],
  ])('is refused with DENIED_BY_RESTRICT before the upstream: %s', async (_what, args) => {
    const before = upstream.requests.length;
    const r = await postJson(`${gw.url}/api/list_issues`, args);
    expect(r.status).toBe(403);
    expect((r.json as { error: { code: string } }).error.code).toBe('DENIED_BY_RESTRICT');
    expect(upstream.requests.length).toBe(before);
  });

  it('inside every rule reaches the upstream', async () => {
    const r = await postJson(`${gw.url}/api/list_issues`, {
      owner: 'acme-labs',
      repo: 'web-app',
      state: 'closed',
      tag: ['t-1'],
    });
    expect(r.status).toBe(200);
    expect(upstream.requests.at(-1)!.path).toBe('/repos/acme-labs/web-app/issues');
  });
});
