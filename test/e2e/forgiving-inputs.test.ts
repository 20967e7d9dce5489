/**
 * Issue 17, "forgiving where it is safe", against a real recording upstream over REST and
 * MCP: `null` for an optional field means "not given" (required ones still refuse it),
 * query values go out percent-encoded unless the grant says form, and a lifted `arg=` is
 * required only when its parent object is.
 */
import { describe, expect, it } from 'vitest';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { callTool } from '../helpers/call-tool.js';
import type { Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

function spec(baseUrl: string): string {
  return `
wrap "forgiving" version="1.0.0"
base-url "${baseUrl}"

can list issues {
    describe "Issues."
    path "/issues"
    query {
        state "string" default="open" {
            enum "open" "closed"
        }
        since "string"
        search "string" as="q"
        labels "string[]"
        exclusive "since" "search"
    }
}

can list things {
    describe "Things, from a form-speaking upstream."
    path "/things"
    query encoding="form" {
        search "string" as="q"
    }
}

can create note {
    describe "A note with optional metadata."
    path "/notes"
    body {
        title "string" required=#true
        tags "object[]" {
            name "string" required=#true
            color "string"
        }
        commit "object" {
            message "string" required=#true arg="commit_message"
            author "string"
        }
        meta "object" {
            source "string" required=#true arg="meta_source"
        }
    }
}
`;
}

let upstream: Upstream;
let gw: TestGateway;

useGatewayOnUpstream(spec, {}, (s) => ({ upstream, gw } = s));

async function rest(tool: string, args: unknown) {
  return postJson(`${gw.url}/api/${tool}`, args);
}

const mcpCall = (tool: string, args: Record<string, unknown>) =>
  callTool(gw.url, tool, args, { era: 'legacy' });

function lastRequest() {
  return upstream.requests.at(-1)!;
}

describe('null for an optional field', () => {
  it('is "not given" over REST: the default applies and nothing is sent for it', async () => {
    const r = await rest('list_issues', { state: null, since: null, labels: null });
    expect(r.status).toBe(200);
    expect(lastRequest().query).toBe('state=open');
  });

  it('is "not given" over MCP too, and does not count in an exclusive group', async () => {
    const result = await mcpCall('list_issues', { since: null, search: 'bug' });
    expect(result.isError).not.toBe(true);
    expect(lastRequest().query).toBe('state=open&q=bug');
  });

  it('is "not given" inside a declared nested object and in each element of an object[]', async () => {
    const r = await rest('create_note', {
      title: 'T',
      tags: [{ name: 'a', color: null }, { name: 'b' }],
      commit: { author: null },
      commit_message: 'm',
    });
    expect(r.status).toBe(200);
    expect(JSON.parse(lastRequest().body)).toEqual({
      title: 'T',
      tags: [{ name: 'a' }, { name: 'b' }],
      commit: { message: 'm' },
    });
  });

  it('is still refused for a required field, naming it', async () => {
    const before = upstream.requests.length;
    const r = await rest('create_note', { title: null });
    expect(r.status).toBe(400);
    const error = (r.json as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('INVALID_ARGUMENTS');
    expect(error.message).toContain('title must be string');
    const nested = await rest('create_note', { title: 'T', tags: [{ name: null }] });
    expect(nested.status).toBe(400);
    expect((nested.json as { error: { message: string } }).error.message).toContain(
      'tags.0.name must be string',
    );
    expect(upstream.requests.length).toBe(before);
  });

  it('is still refused for a name the grant does not declare', async () => {
    const r = await rest('list_issues', { sinse: null });
    expect(r.status).toBe(400);
    expect((r.json as { error: { message: string } }).error.message).toContain(
      'sinse is not an argument of this tool',
    );
  });
});

describe('query values', () => {
  it('are percent-encoded by default: a space is %20 and ( ) * ! are escaped', async () => {
    await rest('list_issues', { search: "a b+c (it's)*!", labels: ['x y', 'z'] });
    expect(lastRequest().query).toBe(
      'state=open&q=a%20b%2Bc%20%28it%27s%29%2A%21&labels=x%20y&labels=z',
    );
  });

  it('are form-encoded when the grant says query encoding="form": a space is +', async () => {
    await rest('list_things', { search: 'a b+c' });
    expect(lastRequest().query).toBe('q=a+b%2Bc');
  });
});

describe('a lifted arg= under an optional parent', () => {
  it('is optional in the input schema, and required once the parent is given', async () => {
    const r = await fetch(`${gw.url}/api`);
    const tools = ((await r.json()) as { tools: { name: string; inputSchema: unknown }[] }).tools;
    const schema = tools.find((t) => t.name === 'create_note')!.inputSchema as {
      required: string[];
      dependentRequired?: Record<string, string[]>;
    };
    expect(schema.required).toEqual(['title']);
    // `meta` has no input field of its own, so only `commit` can be given without its arg.
    expect(schema.dependentRequired).toEqual({ commit: ['commit_message'] });
  });

  it('may be left out: then no parent object is sent', async () => {
    const r = await rest('create_note', { title: 'T' });
    expect(r.status).toBe(200);
    expect(JSON.parse(lastRequest().body)).toEqual({ title: 'T' });
  });

  it('builds its parent when given alone', async () => {
    const r = await rest('create_note', { title: 'T', meta_source: 'cli' });
    expect(r.status).toBe(200);
    expect(JSON.parse(lastRequest().body)).toEqual({ title: 'T', meta: { source: 'cli' } });
  });

  it('is refused when the parent is given without it, naming it', async () => {
    const before = upstream.requests.length;
    const r = await rest('create_note', { title: 'T', commit: { author: 'me' } });
    expect(r.status).toBe(400);
    expect((r.json as { error: { message: string } }).error.message).toContain('commit_message');
    expect(upstream.requests.length).toBe(before);
  });
});
