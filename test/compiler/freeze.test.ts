import { describe, expect, it } from 'vitest';
import { Interner } from '../../src/compiler/freeze.js';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { prepareOperations } from '../../src/engine/operation/prepare-operation.js';
import type { PreparedBackend } from '../../src/engine/backends/kind.js';

describe('the interner that freezes descriptors', () => {
  it('makes equal subtrees one frozen object, and keeps the first seen', () => {
    const interner = new Interner();
    const first = interner.intern({ type: 'object', properties: { id: { type: 'integer' } } });
    const second = interner.intern({ type: 'object', properties: { id: { type: 'integer' } } });
    const part = interner.intern({ id: { type: 'integer' } });
    expect(second).toBe(first);
    expect(part).toBe(first.properties);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.properties.id)).toBe(true);
  });

  it('shares nothing that differs in key order, prototype, -0, holes or a key left undefined', () => {
    const interner = new Interner();
    const distinct = [
      { a: 1, b: 2 },
      { b: 2, a: 1 },
      Object.assign(Object.create(null) as object, { a: 1, b: 2 }),
      { a: -0, b: 2 },
      { a: 0, b: 2 },
      { a: 1, b: 2, c: undefined },
      { a: '1', b: 2 },
      // eslint-disable-next-line no-sparse-arrays
      [1, , 2],
      [1, 2],
      [1, undefined, 2],
      [[1], 2],
    ].map((v) => interner.intern(v));
    expect(new Set(distinct).size).toBe(distinct.length);
  });

  it('keeps an object frozen already, or not plain data, as it is', () => {
    const interner = new Interner();
    const frozen = Object.freeze({ type: 'string' });
    const date = new Date(0);
    const kept = interner.intern({ a: frozen, b: { type: 'string' }, when: date });
    expect(kept.a).toBe(frozen);
    expect(kept.b).not.toBe(frozen);
    expect(kept.when).toBe(date);
    expect(Object.isFrozen(date)).toBe(true);
  });
});

const SPEC = `wrap "shared" version="1.0.0" {
    describe "Grants alike in part."
}
base-url "http://127.0.0.1:9"
restrict {
    owner "acme" "acme-labs"
}
can list issues {
    describe "Issues."
    path "/repos/{owner}/issues"
    query { state "string" { enum "open" "closed"; }; }
}
can list pulls {
    describe "Pulls."
    path "/repos/{owner}/pulls"
    query { state "string" { enum "open" "closed"; }; }
}
can get repo {
    describe "A repository."
    path "/repos/{owner}"
}
`;

describe('descriptors of grants alike in part', () => {
  it('share one input schema and one restrict list, and the checks made of them', () => {
    const { compiled, diagnostics } = compileSpecText(SPEC, 'shared.mcp.kdl');
    expect(diagnostics).toEqual([]);
    const [issues, pulls, repo] = compiled!.tools;
    expect(pulls!.inputSchema).toBe(issues!.inputSchema);
    expect(repo!.inputSchema).not.toBe(issues!.inputSchema);
    expect(repo!.restrict).toBe(issues!.restrict);
    const owner = (d: typeof repo) => (d!.inputSchema.properties as Record<string, unknown>).owner;
    expect(owner(repo)).toBe(owner(issues));

    const backends = new Map(compiled!.tools.map((d) => [d.name, {} as PreparedBackend]));
    const ops = prepareOperations(compiled!, backends, undefined);
    const [a, b, c] = ['list_issues', 'list_pulls', 'get_repo'].map((n) => ops.get(n)!);
    expect(b!.restrict).toBe(a!.restrict);
    expect(c!.restrict).toBe(a!.restrict);
    expect(b!.stripNulls).toBe(a!.stripNulls);
    // Shared, and still each grant's own check: a value outside the list is refused.
    expect(c!.restrict!({ owner: 'acme' })).toBeUndefined();
    expect(c!.restrict!({ owner: 'evil' })?.code).toBe('DENIED_BY_RESTRICT');
  });
});
