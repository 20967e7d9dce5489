/**
 * Toolset membership in the engine (spec-language.md, "Toolsets"): what a toolset URL
 * lists and accepts is decided here once, so both MCP eras and REST render the same
 * answer. Membership narrows what is offered; scopes still apply inside it; a member
 * built from a non-member (a `from=` resource, an embedded resource) still works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gateway } from '../../src/engine/gateway.js';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { scopeFor } from '../helpers/scope.js';

const specText = (baseUrl: string) => `
wrap "sets" version="1.0.0"
base-url "${baseUrl}"
access {
    oauth issuer="https://idp.example.com" audience="https://t.example.com/mcp" jwks-uri="https://idp.example.com/jwks.json"
}
can list issues {
    describe "d"
    path "/issues"
}
can get issue {
    describe "d"
    path "/issues/{id}" {
        id "integer"
    }
}
can delete issue {
    describe "d"
    path "/issues/{id}" {
        id "integer"
    }
    scope "issues:admin"
}
resource "docs://handbook" text="be kind"
resource "docs://secret" text="staff only"
resource "issues://{id}" from="get_issue"
prompt "triage" {
    argument "id" required=#true
    message "user" resource="issues://{id}"
}
prompt "hello" {
    message "user" "hello"
}
toolset "triage" {
    tools "list_issues" "delete_issue"
    resources "issues://{id}" "docs://handbook"
    prompts "triage"
}
toolset "docs" {
    resources "docs://secret"
}
`;

const caller = (...scopes: string[]) => ({ id: 'c', scopes: new Set(scopes) });
const everyScope = { id: 'all', scopes: 'all' as const };

let upstream: Upstream;
let gateway: Gateway;
beforeAll(async () => {
  upstream = await startUpstream();
  const compiled = compileSpecText(specText(upstream.url), 'sets.mcp.kdl').compiled!;
  gateway = await Gateway.prepare(compiled);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

describe('a toolset', () => {
  it('is found by name, and a name the spec has none of (or an Object key) finds nothing', () => {
    expect(gateway.toolset('triage')?.name).toBe('triage');
    expect(gateway.toolset('nope')).toBeUndefined();
    expect(gateway.toolset('__proto__')).toBeUndefined();
    expect(gateway.toolset('constructor')).toBeUndefined();
  });

  it('shows its members only, in spec order, then filtered by the caller scopes', () => {
    const triage = gateway.toolset('triage')!;
    const all = gateway.view(triage).visibleTo(everyScope);
    expect(all.operations.map((op) => op.name)).toEqual(['list_issues', 'delete_issue']);
    expect(all.resources.map((r) => r.uri)).toEqual(['docs://handbook']);
    expect(all.templates.map((r) => r.uri)).toEqual(['issues://{id}']);
    expect(all.prompts.map((p) => p.name)).toEqual(['triage']);
    expect(
      gateway
        .view(triage)
        .visibleTo(caller())
        .operations.map((op) => op.name),
    ).toEqual(['list_issues']);
    // The whole gateway is unchanged by its toolsets.
    expect(
      gateway
        .view()
        .visibleTo(everyScope)
        .operations.map((op) => op.name),
    ).toEqual(['list_issues', 'get_issue', 'delete_issue']);
  });

  it('gives callers with the same outcome the same frozen view, apart from the whole list', () => {
    const triage = gateway.toolset('triage')!;
    const a = gateway.view(triage).visibleTo(caller('x'));
    expect(gateway.view(triage).visibleTo(caller('y'))).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(gateway.view().visibleTo(caller('x'))).not.toBe(a);
  });

  it('finds no operation that is not a member, as for a name no grant has', () => {
    const triage = gateway.toolset('triage')!;
    expect(gateway.view(triage).operation('list_issues')?.name).toBe('list_issues');
    expect(gateway.view(triage).operation('get_issue')).toBeUndefined();
    expect(gateway.view().operation('get_issue')?.name).toBe('get_issue');
  });

  it('reads a member from= resource whose grant is not a member, through that grant', async () => {
    const before = upstream.requests.length;
    const read = await gateway
      .view(gateway.toolset('triage'))
      .readResource('issues://7', scopeFor(caller()));
    expect(read.ok).toBe(true);
    expect(upstream.requests.slice(before).map((r) => r.path)).toEqual(['/issues/7']);
  });

  it('does not read a resource that is not a member: not found, as for a URI nothing serves', async () => {
    const read = await gateway
      .view(gateway.toolset('triage'))
      .readResource('docs://secret', scopeFor(caller()));
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.error.code).toBe('RESOURCE_NOT_FOUND');
    const inDocs = await gateway
      .view(gateway.toolset('docs'))
      .readResource('docs://secret', scopeFor(caller()));
    expect(inDocs.ok).toBe(true);
  });

  it('gets a member prompt that embeds a resource of no toolset, and not a non-member prompt', async () => {
    const triage = gateway.toolset('triage')!;
    const before = upstream.requests.length;
    const got = await gateway.view(triage).getPrompt('triage', { id: '3' }, scopeFor(caller()));
    expect(got.ok).toBe(true);
    expect(upstream.requests.slice(before).map((r) => r.path)).toEqual(['/issues/3']);
    const hello = await gateway.view(triage).getPrompt('hello', {}, scopeFor(caller()));
    expect(hello.ok).toBe(false);
    if (!hello.ok) expect(hello.error.code).toBe('UNKNOWN_PROMPT');
    expect((await gateway.view().getPrompt('hello', {}, scopeFor(caller()))).ok).toBe(true);
  });

  it('completes only its member prompts and templates', () => {
    const docs = gateway.toolset('docs')!;
    const out = gateway
      .view(docs)
      .complete({ type: 'ref/prompt', name: 'triage' }, 'id', '', caller());
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error.code).toBe('UNKNOWN_PROMPT');
    const tpl = gateway
      .view(docs)
      .complete({ type: 'ref/resource', uri: 'issues://{id}' }, 'id', '', caller());
    expect(tpl.ok).toBe(false);
    if (!tpl.ok) expect(tpl.error.code).toBe('RESOURCE_NOT_FOUND');
    const inTriage = gateway
      .view(gateway.toolset('triage'))
      .complete({ type: 'ref/prompt', name: 'triage' }, 'id', '', caller());
    expect(inTriage.ok).toBe(true);
  });
});
