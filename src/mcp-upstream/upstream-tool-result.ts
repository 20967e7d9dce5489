/**
 * A `tools/call` result as the grant's result (spec-language.md, "Upstream MCP servers"):
 * the upstream's `structuredContent` if present; else a single text block that parses as
 * JSON, parsed; else, when every block is text, the texts joined by "\n"; else
 * `{content: [...]}` of its blocks. `isError: true` is the tool's own failure, with its
 * text (redacted before it is cut, so no cut leaves the front of a secret).
 */
import { mayBeJson } from '../json/may-be-json.js';
import type { ContentBlock } from '../mcp-wire/tool-call-result.js';
import { capText, TOOL_ERROR_TEXT_BYTES, type UpstreamOutcome } from './upstream-outcome.js';

export function mapToolResult(
  result: Readonly<Record<string, unknown>>,
  redact: (text: string) => string,
): UpstreamOutcome<unknown> {
  const content = result.content ?? [];
  if (!Array.isArray(content) || !content.every(isBlock)) {
    return {
      ok: false,
      error: {
        kind: 'protocol',
        message:
          'the upstream answered tools/call with content that is not a list of content blocks',
      },
    };
  }
  if (result.isError === true) {
    const texts = content.filter(isText).map((b) => b.text);
    const text = texts.length ? texts.join('\n') : JSON.stringify(content);
    return {
      ok: false,
      error: { kind: 'tool-error', message: capText(redact(text), TOOL_ERROR_TEXT_BYTES) },
    };
  }
  const structured = result.structuredContent;
  if (structured !== undefined && structured !== null) return { ok: true, value: structured };
  if (content.length === 1 && isText(content[0]!)) {
    const text = content[0].text;
    // Prose is the common case: it is kept as text without a parse that must throw.
    if (!mayBeJson(text)) return { ok: true, value: text };
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      return { ok: true, value: text };
    }
  }
  if (content.length > 0 && content.every(isText))
    return { ok: true, value: content.map((b) => b.text).join('\n') };
  return { ok: true, value: { content } };
}

function isBlock(b: unknown): b is ContentBlock {
  return b !== null && typeof b === 'object' && typeof (b as ContentBlock).type === 'string';
}

function isText(b: ContentBlock): b is ContentBlock & { readonly text: string } {
  return b.type === 'text' && typeof b.text === 'string';
}
