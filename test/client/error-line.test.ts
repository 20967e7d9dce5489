/**
 * The one line `mcp-beaver` prints for an HTTP error: a body in the gateway's REST error
 * shape, `{"error":{"code":"NOT_FOUND","message":"..."}}`, reads as its code and sentence
 * rather than as raw JSON; a JSON-RPC body and plain text read as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { clientErrorLine } from '../../src/client/errors.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { issuesServerHeader, listIssuesGrant } from '../helpers/spec-fixtures.js';
import { runCli } from '../helpers/run-cli.js';

const URL_ = 'http://127.0.0.1:9/mcp/nosuch';

/** What the SDK's transport throws for a non-2xx answer: status, status text and body. */
function httpError(status: number, statusText: string, text: string): SdkError {
  return new SdkError(SdkErrorCode.ClientHttpNotImplemented, `Error POSTing to endpoint: ${text}`, {
    status,
    statusText,
    text,
  });
}

describe('clientErrorLine for an HTTP error body', () => {
  it('reads a REST error body as HTTP status, code and message', () => {
    const body = JSON.stringify({
      error: { code: 'NOT_FOUND', message: 'no toolset named nosuch' },
    });
    expect(clientErrorLine(URL_, httpError(404, 'Not Found', body))).toBe(
      `mcp-beaver: ${URL_}: HTTP 404 Not Found: NOT_FOUND: no toolset named nosuch`,
    );
  });

  it('keeps the details out and clips a long message to 300 characters, on one line', () => {
    const message = `first line\nsecond ${'x'.repeat(400)}`;
    const body = JSON.stringify({
      error: { code: 'PAYLOAD_TOO_LARGE', message, details: { limit: 1 } },
    });
    const line = clientErrorLine(URL_, httpError(413, 'Payload Too Large', body));
    const head = `mcp-beaver: ${URL_}: HTTP 413 Payload Too Large: PAYLOAD_TOO_LARGE: `;
    expect(line.startsWith(`${head}first line second xxx`)).toBe(true);
    expect(line.slice(head.length)).toHaveLength(301);
    expect(line.endsWith('x…')).toBe(true);
    expect(line).not.toContain('details');
  });

  it('makes the control characters of a REST message visible', () => {
    const body = JSON.stringify({ error: { code: 'NOT_FOUND', message: 'gone\u001b[2J' } });
    const line = clientErrorLine(URL_, httpError(404, 'Not Found', body));
    expect(line).not.toContain('\u001b');
    expect(line).toContain('NOT_FOUND: gone');
  });

  it('shows the raw text when the code is not a catalogue word or the message is missing', () => {
    for (const body of [
      JSON.stringify({ error: { code: 'not found', message: 'x' } }),
      JSON.stringify({ error: { code: 'NOT_FOUND' } }),
      JSON.stringify({ error: 'NOT_FOUND' }),
    ]) {
      expect(clientErrorLine(URL_, httpError(404, 'Not Found', body))).toBe(
        `mcp-beaver: ${URL_}: HTTP 404 Not Found: ${body}`,
      );
    }
  });

  it('still reads a JSON-RPC error body as JSON-RPC, and plain text as text', () => {
    const rpc = JSON.stringify({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'bad request', data: { code: 'INVALID_REQUEST' } },
    });
    expect(clientErrorLine(URL_, httpError(400, 'Bad Request', rpc))).toBe(
      `mcp-beaver: ${URL_}: HTTP 400 Bad Request: JSON-RPC -32600 INVALID_REQUEST: bad request`,
    );
    expect(clientErrorLine(URL_, httpError(502, 'Bad Gateway', 'upstream down'))).toBe(
      `mcp-beaver: ${URL_}: HTTP 502 Bad Gateway: upstream down`,
    );
  });
});

describe('mcp-beaver tools against a gateway path that serves nothing', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startGateway(`${issuesServerHeader('http://127.0.0.1:9')}\n${listIssuesGrant()}`, {
      env: { ISSUES_TOKEN: 't' },
    });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it.each(['legacy', 'auto', 'modern'] as const)(
    'prints the 404 as its code and message in one line, exit 2 (--era %s)',
    async (era) => {
      const url = `${gw.url}/mcp/nosuch`;
      const r = await runCli(['tools', url, '--era', era]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(
          `^mcp-beaver: ${url.replace(/[.]/g, '\\.')}: HTTP 404 Not Found: NOT_FOUND: [^{}\\n]+\\n$`,
        ),
      );
    },
  );
});
