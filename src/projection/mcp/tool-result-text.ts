/**
 * Engine outcomes as MCP tools/call results (protocol.md, "Both eras"): the envelope
 * as text content and as structuredContent; tool failures as isError results with a
 * message the model can act on. Built as text so the envelope is serialized once.
 *
 * The text block is the envelope while it is within the grant's budget-bytes, the
 * smallest client cap known. Past that it is the envelope cut to budget-bytes (issue 40):
 * a host that gives its model only text still gets what fits its cap, marked `truncated`
 * with `kept` counts, and a 1 MB result is not sent a second time, escaped; the whole
 * envelope is structuredContent. One text block, not a second one pointing at
 * structuredContent: a consumer that parses a lone text block as JSON (as this gateway
 * does an upstream's) keeps reading an envelope, and the cut already says it is one.
 *
 * A call waiting for someone's approval (docs/spec-language.md, "Confirmation and
 * approval") also carries the approval itself as `_meta["mcp-beaver/approval"]`, in both
 * eras: the same `details.approval` object REST answers with, and its filled message in
 * the text, so a host can show the person what is being asked without parsing prose.
 */
import type { EngineError } from '../../engine/error-catalogue.js';
import { envelopeParts } from '../../envelope/envelope.js';
import type { Done, Failed } from '../../engine/execute.js';

/** The `_meta` key of the approval a waiting call's result carries. */
const APPROVAL_META = 'mcp-beaver/approval';

/** A result's closing members: `resultType` and `_meta` (its JSON text) in 2026-07-28. */
export interface ResultTail {
  readonly modern: boolean;
  /** The `_meta` every modern result carries, as JSON text. */
  readonly meta: string;
}

/** The text of a tools/call result, ending with the era's tail. */
export function toolResultText(out: Done | Failed, tail: ResultTail): string {
  if (out.ok) {
    const { json, withinBudget } = out.envelope;
    return `${OK_OPENING}${textBlock(json, withinBudget())}${OK_STRUCTURED}${json}${okTail(tail)}`;
  }
  const approval = approvalOf(out.error);
  let text = actionableMessage(out.error);
  let meta = tail.modern ? tail.meta : undefined;
  if (approval) {
    if (typeof approval.message === 'string')
      text += `\nAsked of the approver: ${approval.message}`;
    // Rare (a call parked for approval): the precompiled `_meta` is parsed to add one member.
    meta = JSON.stringify({ ...(meta && JSON.parse(meta)), [APPROVAL_META]: approval });
  }
  return `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"isError":true${tailText(tail, meta)}}`;
}

/**
 * A successful call's result text in its parts, the envelope's JSON one of them: for an
 * answer written as bytes (dispatch.ts, a large result), never assembled as one string.
 */
export function toolResultParts(out: Done, tail: ResultTail): string[] {
  const { json, withinBudget } = out.envelope;
  return [
    OK_OPENING,
    textBlock(json, withinBudget()),
    OK_STRUCTURED,
    ...envelopeParts(out.envelope),
    okTail(tail),
  ];
}

/** A successful result's text around its text block and its envelope. */
const OK_OPENING = '{"content":[{"type":"text","text":';
const OK_STRUCTURED = '}],"structuredContent":';

function okTail(tail: ResultTail): string {
  return `,"isError":false${tailText(tail, tail.modern ? tail.meta : undefined)}}`;
}

/** Characters that would make V8 hold the text, and the answer around it, as two-byte. */
const WIDE = /[\u0100-\uffff]/g;

/**
 * The text block as a JSON string. When it is the cut envelope, characters past
 * U+00FF (from the result's own text: the cut's `…` marker is already written as an
 * escape, envelope/truncate.ts) are written as `\u` escapes: one such
 * character in a 40 KB text would turn the concatenated answer, 1 MB of one-byte
 * structuredContent included, into a two-byte string, which doubled the cost of
 * assembling and encoding it (measured: 6 → 15 ms a 1 MB answer). Same parsed text.
 */
function textBlock(json: string, text: string): string {
  const quoted = JSON.stringify(text);
  if (text === json || !WIDE.test(quoted)) return quoted;
  WIDE.lastIndex = 0;
  // The replaced text is still held as two-byte; read back from Latin-1 (lossless, every
  // character is now below U+0100) it is one-byte again.
  return Buffer.from(quoted.replace(WIDE, escapeUnit), 'latin1').toString('latin1');
}

function escapeUnit(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

function tailText(tail: ResultTail, meta: string | undefined): string {
  const type = tail.modern ? ',"resultType":"complete"' : '';
  return meta === undefined ? type : `${type},"_meta":${meta}`;
}

/** `details.approval` of a failure that waits for an approval; undefined for the rest. */
function approvalOf(e: EngineError): Record<string, unknown> | undefined {
  const details = e.details;
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return undefined;
  const approval = (details as { approval?: unknown }).approval;
  return approval !== null && typeof approval === 'object' && !Array.isArray(approval)
    ? (approval as Record<string, unknown>)
    : undefined;
}

/** One paragraph for the model: the code, what went wrong, and each field's problem. */
export function actionableMessage(e: EngineError): string {
  let text = `${e.code}: ${e.message}`;
  if (Array.isArray(e.details) && e.details.length > 1) {
    text += `\n${(e.details as { field: string; message: string }[]).map((d) => `- ${d.field || '(arguments)'}: ${d.message}`).join('\n')}`;
  }
  if (e.retryAfter !== undefined) text += `\nRetry after ${e.retryAfter} s.`;
  return text;
}
