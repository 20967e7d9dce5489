/**
 * The engine's one answer to "which tools may this caller see": tools/list, GET /api and
 * the OpenAPI document render the view it returns, so it is tested here once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gateway } from '../../src/engine/gateway.js';
import { compileSpecText } from '../../src/spec/load-spec.js';

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
    expect(gateway.visibleTo(caller()).operations.map((op) => op.name)).toEqual(['list_labels']);
    expect(gateway.visibleTo(caller('issues:read')).operations.map((op) => op.name)).toEqual([
      'list_issues',
      'list_labels',
    ]);
    const admin = gateway.visibleTo(caller('issues:write', 'issues:read'));
    expect(admin.descriptors.map((d) => d.name)).toEqual([
      'list_issues',
      'create_issue',
      'list_labels',
    ]);
    expect(admin.has('create_issue')).toBe(true);
    expect(gateway.visibleTo(caller('issues:read')).has('create_issue')).toBe(false);
  });

  it('shows everything to a caller without scope limits', () => {
    expect(gateway.visibleTo({ id: 'anonymous', scopes: 'all' }).key).toBe(
      'list_issues,create_issue,list_labels',
    );
  });

  it('returns the same frozen view to callers whose scopes yield the same tools', () => {
    const a = gateway.visibleTo(caller('issues:read'));
    const b = gateway.visibleTo(caller('issues:read', 'unrelated'));
    expect(b).toBe(a);
    expect(gateway.visibleTo(caller('issues:read'))).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.operations)).toBe(true);
  });

  it('still answers correctly for scope sets beyond its cache', () => {
    for (let i = 0; i < 300; i++) gateway.visibleTo(caller(`s${i}`));
    const late = gateway.visibleTo(caller('issues:read', 'issues:write', 'late'));
    expect(late.key).toBe('list_issues,create_issue,list_labels');
  });
});
