/**
 * An upstream's JSON body reaches the caller as the upstream wrote it when that text is
 * compact and holds no escape (issue 40: no parse → serialize round trip): numbers keep
 * their digits. Any other text, and one holding a credential of the gateway, is the
 * parsed value serialized again, the credential redacted. Over REST and over MCP.
 */
import type { ServerResponse } from 'node:http';
import { beforeEach, describe, expect, it } from 'vitest';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { postToolCall } from '../helpers/call-tool.js';
import type { Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';

const TOKEN = 'as-sent-upstream-token-7c1f';

const SPEC = (upstream: string): string => `
wrap "as-sent" version="1.0.0"
base-url "${upstream}"
auth bearer env="UP_TOKEN"
can get doc {
    describe "The upstream's document."
    path "/doc"
}
`;

let upstream: Upstream;
let gw: TestGateway;
useGatewayOnUpstream(SPEC, { env: { UP_TOKEN: TOKEN } }, (s) => ({ upstream, gw } = s));

let body = '';
beforeEach(() => {
  upstream.handle((_req, res: ServerResponse) => {
    res.setHeader('content-type', 'application/json');
    res.end(body);
  });
});

/** The `result` member of the REST answer and of the MCP structuredContent, as JSON text. */
async function resultTexts(): Promise<{ rest: string; mcp: string }> {
  const rest = await postJson(`${gw.url}/api/get_doc`, {});
  const mcp = await postToolCall(gw.url, 'get_doc');
  expect(rest.status).toBe(200);
  const after = (text: string, from: string): string =>
    text.slice(text.indexOf(from) + from.length);
  return {
    rest: after(rest.text, ',"result":').slice(0, -1),
    mcp: after(mcp.text, '"structuredContent":{"coverage":'),
  };
}

describe("an upstream's JSON body", () => {
  it('is passed on as written when compact and free of escapes: a 20-digit integer and 1.50 keep their digits', async () => {
    body = '{"id":12345678901234567890,"price":1.50,"tags":["a","b"]}\n';
    const { rest, mcp } = await resultTexts();
    expect(rest).toBe(body.trim());
    expect(mcp).toContain(`"result":${body.trim()}}`);
  });

  it('is serialized again when the upstream spaced it, and sent compact', async () => {
    body = JSON.stringify({ id: 7, tags: ['a', 'b'] }, null, 2);
    const { rest } = await resultTexts();
    expect(rest).toBe('{"id":7,"tags":["a","b"]}');
  });

  it('is serialized again from its decoded strings when it holds escapes', async () => {
    body = '{"path":"a\\/b","plus":"\\u002b"}';
    const { rest } = await resultTexts();
    expect(rest).toBe('{"path":"a/b","plus":"+"}');
  });

  it('has a credential of the gateway redacted though compact, on both surfaces', async () => {
    body = `{"echo":"Bearer ${TOKEN}","n":1.50}`;
    const { rest, mcp } = await resultTexts();
    expect(rest).toBe('{"echo":"Bearer [REDACTED]","n":1.5}');
    expect(mcp).not.toContain(TOKEN);
  });
});
