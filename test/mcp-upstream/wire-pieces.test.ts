/**
 * The small pieces under the connection layer, on inputs the real servers do not
 * produce: events split across chunks, lines past the cap, and each branch of the
 * tools/call result mapping.
 */
import { describe, expect, it } from 'vitest';
import { BoundedLines } from '../../src/mcp-upstream/bounded-lines.js';
import { encodeHeaderValue as headerValue } from '../../src/mcp-wire/header-values.js';
import { SseEvents } from '../../src/mcp-upstream/sse-events.js';
import { mapToolResult } from '../../src/mcp-upstream/upstream-tool-result.js';

const same = (t: string): string => t;

describe('server-sent events', () => {
  it('are taken whole whatever the chunks, with CRLF, comments and other event types', () => {
    const stream =
      ': ping\r\n\r\nevent: message\r\ndata: {"a":\r\ndata: 1}\r\n\r\nevent: other\ndata: x\n\ndata: é\n\n';
    const bytes = Buffer.from(stream);
    for (const size of [1, 2, 3, 7, bytes.length]) {
      const sse = new SseEvents();
      const out: string[] = [];
      for (let i = 0; i < bytes.length; i += size)
        out.push(...sse.push(bytes.subarray(i, i + size)));
      expect(out).toEqual(['{"a":\n1}', 'é']);
    }
  });

  it('drop a byte-order mark opening the stream, and end a line at a lone CR', () => {
    const bytes = Buffer.from('\uFEFFdata: a\rdata: \uFEFFb\r\r: end\n');
    for (const size of [1, 2, 3, bytes.length]) {
      const sse = new SseEvents();
      const out: string[] = [];
      for (let i = 0; i < bytes.length; i += size)
        out.push(...sse.push(bytes.subarray(i, i + size)));
      expect(out).toEqual(['a\n\uFEFFb']);
    }
  });
});

describe('bounded lines', () => {
  it('pass lines under the cap and report one over it by its edges and length', () => {
    const lines: string[] = [];
    const long: [string, string, number][] = [];
    const b = new BoundedLines(
      10,
      {
        line: (t) => lines.push(t),
        overlong: (h, t, n) => long.push([h, t, n]),
      },
      4,
    );
    b.push(Buffer.from('short\r\n\nabcdefghijklmnop'));
    expect(b.overflowing).toBe(16);
    b.push(Buffer.from('qrstuvwxyz\nnext\n'));
    expect(lines).toEqual(['short', 'next']);
    expect(long).toEqual([['abcd', 'wxyz', 26]]);
    expect(b.overflowing).toBe(0);
  });
});

describe('a tools/call result', () => {
  it('is its structuredContent when present', () => {
    expect(
      mapToolResult({ structuredContent: { n: 1 }, content: [{ type: 'text', text: 'x' }] }, same),
    ).toEqual({ ok: true, value: { n: 1 } });
  });

  it('is one text block parsed when it is JSON, and as text when not', () => {
    expect(mapToolResult({ content: [{ type: 'text', text: '[1,2]' }] }, same)).toEqual({
      ok: true,
      value: [1, 2],
    });
    expect(mapToolResult({ content: [{ type: 'text', text: 'plain' }] }, same)).toEqual({
      ok: true,
      value: 'plain',
    });
  });

  it('is {content} when a block is not text, or when there are none', () => {
    const content = [
      { type: 'text', text: 'a' },
      { type: 'resource_link', uri: 'file:///x' },
    ];
    expect(mapToolResult({ content }, same)).toEqual({ ok: true, value: { content } });
    expect(mapToolResult({ content: [] }, same)).toEqual({ ok: true, value: { content: [] } });
  });

  it('with isError is a tool error whose text is redacted before it is cut to 2 KB', () => {
    const secret = 'tok-123456';
    const text = `${'a'.repeat(2040)}${secret}`;
    const out = mapToolResult({ isError: true, content: [{ type: 'text', text }] }, (t) =>
      t.replaceAll(secret, '[REDACTED]'),
    );
    expect(out.ok).toBe(false);
    const message = !out.ok ? out.error.message : '';
    expect(Buffer.byteLength(message)).toBeLessThanOrEqual(2048);
    expect(message).not.toContain('tok-');
  });

  it('whose content is not a list of blocks is not MCP', () => {
    expect(mapToolResult({ content: 'text' }, same)).toMatchObject({
      ok: false,
      error: { kind: 'protocol' },
    });
  });
});

describe('a header value', () => {
  it('is plain ASCII as it is, and anything else base64 in the sentinel', () => {
    expect(headerValue('search_issues')).toBe('search_issues');
    expect(headerValue('résumé')).toBe(`=?base64?${Buffer.from('résumé').toString('base64')}?=`);
    expect(headerValue(' padded')).toMatch(/^=\?base64\?/);
  });
});
