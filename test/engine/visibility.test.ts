/**
 * The engine's one answer to "which tools may this caller see": tools/list, GET /api and
 * the OpenAPI document render the view it returns, so it is tested here once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gateway } from '../../src/engine/gateway.js';
import { compileSpecText } from '../../src/compiler/load-spec.js';

const SPEC = `
wrap "visible" version="1.0.0"
base-url "http://127.0.0.1:9"
access {
    oauth issuer="https://idp.example.com" audience="https://t.example.com/mcp" jwks-uri="https://idp.example.com/jwks.json"
}
can list issues {
    path "/issues"
    scope "issues:read"
}
can create issue {
    path "/issues"
    scope "issues:read"
    scope "issues:write"
}
can list labels {
    path "/labels"
}
`;

let gateway: Gateway;
beforeAll(async () => {
  const result = compileSpecText(SPEC, 'visible.mcp.kdl');
  gateway = await Gateway.prepare(result.compiled!);
});
afterAll(() => gateway.close());

const caller = (...scopes: string[]) => ({ id: 'c', scopes: new Set(scopes) });

describe('gateway.visibleTo', () => {
  it('shows a caller the tools whose every scope it holds, in spec order', () => {
    expect(
      gateway
        .view()
        .visibleTo(caller())
        .operations.map((op) => op.name),
    ).toEqual(['list_labels']);
    expect(
      gateway
        .view()
        .visibleTo(caller('issues:read'))
        .operations.map((op) => op.name),
    ).toEqual(['list_issues', 'list_labels']);
    const admin = gateway.view().visibleTo(caller('issues:write', 'issues:read'));
    expect(admin.descriptors.map((d) => d.name)).toEqual([
      'list_issues',
      'create_issue',
      'list_labels',
    ]);
    expect(admin.has('create_issue')).toBe(true);
    expect(gateway.view().visibleTo(caller('issues:read')).has('create_issue')).toBe(false);
  });

  it('shows everything to a caller without scope limits', () => {
    expect(gateway.view().visibleTo({ id: 'anonymous', scopes: 'all' }).key).toBe(
      'list_issues,create_issue,list_labels',
    );
  });

  it('returns the same frozen view to callers whose scopes yield the same tools', () => {
    const a = gateway.view().visibleTo(caller('issues:read'));
    const b = gateway.view().visibleTo(caller('issues:read', 'unrelated'));
    expect(b).toBe(a);
    expect(gateway.view().visibleTo(caller('issues:read'))).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.operations)).toBe(true);
  });

  it('still answers correctly for scope sets beyond its cache', () => {
    for (let i = 0; i < 300; i++) gateway.view().visibleTo(caller(`s${i}`));
    const late = gateway.view().visibleTo(caller('issues:read', 'issues:write', 'late'));
    expect(late.key).toBe('list_issues,create_issue,list_labels');
  });
});

describe('gateway.visibleTo for resources and prompts', () => {
  const WITH_RESOURCES = `
wrap "visible-resources" version="1.0.0"
base-url "http://127.0.0.1:9"
access {
    oauth issuer="https://idp.example.com" audience="https://t.example.com/mcp" jwks-uri="https://idp.example.com/jwks.json"
}
can get issue {
    path "/issues/{id}"
    scope "issues:read"
}
resource "docs://guide" text="Read me."
resource "docs://secret" text="Staff only." {
    scope "staff"
}
resource "issues://{id}" from="get_issue"
prompt "summarize" {
    argument "id" required=#true
    message "user" resource="issues://{id}"
}
prompt "hello" {
    message "user" "Hello."
}
`;
  let gw: Gateway;
  beforeAll(async () => {
    gw = await Gateway.prepare(compileSpecText(WITH_RESOURCES, 'r.mcp.kdl').compiled!);
  });
  afterAll(() => gw.close());

  it("shows a from= resource only to holders of its grant's scopes, and a prompt only with its embedded resources' scopes", () => {
    const none = gw.view().visibleTo(caller());
    expect(none.resources.map((r) => r.uri)).toEqual(['docs://guide']);
    expect(none.templates).toEqual([]);
    expect(none.prompts.map((p) => p.name)).toEqual(['hello']);
    const reader = gw.view().visibleTo(caller('issues:read'));
    expect(reader.templates.map((r) => r.uri)).toEqual(['issues://{id}']);
    expect(reader.prompts.map((p) => p.name)).toEqual(['summarize', 'hello']);
    const staff = gw.view().visibleTo(caller('staff'));
    expect(staff.resources.map((r) => r.uri)).toEqual(['docs://guide', 'docs://secret']);
  });

  it('gives callers whose scopes see the same entries the same frozen view', () => {
    const a = gw.view().visibleTo(caller('issues:read', 'other'));
    const b = gw.view().visibleTo(caller('issues:read'));
    expect(a).toBe(b);
    expect(Object.isFrozen(a.templates)).toBe(true);
    expect(gw.view().visibleTo(caller('staff'))).not.toBe(b);
  });
});
