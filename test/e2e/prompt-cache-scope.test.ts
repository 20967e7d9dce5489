/**
 * The 2026-07-28 cache hint of prompts/get comes from what the get actually read. A
 * prompt's `resource="docs://x/{name}"` is matched at load by a public template, but a
 * filled URI may be a fixed resource with a `scope`: that answer is the caller's, so it
 * is "private", never "public" for a shared cache to hand to the next caller.
 */
import { describe, expect, it } from 'vitest';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { META_CAPS, META_VERSION, MODERN } from '../helpers/mcp-wire.js';
import type { Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const STAFF_KEY = 'inbound-staff-key-123';
const GUEST_KEY = 'inbound-guest-key-456';

function spec(upstream: string): string {
  return `
wrap "prompt-cache" version="1"
base-url "${upstream}/api"
access {
    api-key env="S" scopes="staff"
    api-key env="G" scopes="guest"
}
can get doc {
    describe "One public document."
    path "/docs/{name}"
}
resource "docs://x/secret" text="Staff only: the safe code is 1234." {
    scope "staff"
}
resource "docs://x/{name}" from="get_doc"
resource "docs://hours" text="Mon-Fri"
prompt "show" {
    argument "name" required=#true
    message "user" resource="docs://x/{name}"
}
prompt "hours" {
    message "user" resource="docs://hours"
}
`;
}

let upstream: Upstream;
let gw: TestGateway;

useGatewayOnUpstream(spec, { env: { S: STAFF_KEY, G: GUEST_KEY } }, (s) => ({ upstream, gw } = s));

interface GetReply {
  result?: {
    messages: { content: { resource: { uri: string; text: string } } }[];
    ttlMs: number;
    cacheScope: string;
  };
  error?: { code: number; data?: { code: string } };
}

async function getPrompt(
  name: string,
  args: Record<string, string>,
  key: string,
): Promise<{ status: number; json: GetReply }> {
  const r = await postJson(
    `${gw.url}/mcp`,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'prompts/get',
      params: { name, arguments: args, _meta: { [META_VERSION]: MODERN, [META_CAPS]: {} } },
    },
    {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'prompts/get',
      'mcp-name': name,
      authorization: `Bearer ${key}`,
    },
  );
  return { status: r.status, json: r.json as GetReply };
}

describe('the cache hint of prompts/get', () => {
  it('is private when the filled URI is a fixed resource with a scope', async () => {
    const r = await getPrompt('show', { name: 'secret' }, STAFF_KEY);
    expect(r.json.error).toBeUndefined();
    expect(r.json.result!.messages[0]!.content.resource.text).toBe(
      'Staff only: the safe code is 1234.',
    );
    expect(r.json.result!.cacheScope).toBe('private');
  });

  it('is private and stale at once when the filled URI is the template, read from a grant', async () => {
    const r = await getPrompt('show', { name: 'guide' }, GUEST_KEY);
    expect(r.json.error).toBeUndefined();
    expect(upstream.requests.at(-1)!.path).toBe('/api/docs/guide');
    expect(r.json.result!.cacheScope).toBe('private');
    expect(r.json.result!.ttlMs).toBe(0);
  });

  it('stays public for a prompt that embeds only an unscoped fixed resource', async () => {
    const r = await getPrompt('hours', {}, GUEST_KEY);
    expect(r.json.result!.cacheScope).toBe('public');
    expect(r.json.result!.ttlMs).toBe(60000);
  });

  it('refuses the scoped resource to a caller without its scope, as a read would', async () => {
    const r = await getPrompt('show', { name: 'secret' }, GUEST_KEY);
    expect(r.status).toBe(403);
    expect(JSON.stringify(r.json)).not.toContain('1234');
  });
});
