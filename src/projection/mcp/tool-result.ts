/**
 * Engine outcomes as MCP tools/call results (protocol.md, "Both eras"): the envelope
 * as text content and as structuredContent; tool failures as isError results with a
 * message the model can act on. Built as text so the envelope is serialized once.
 */
import type { EngineError } from '../../engine/error-catalogue.js';
import type { Outcome } from '../../engine/execute.js';

/** `modernTail` is `,"resultType":"complete","_meta":{...}` for 2026-07-28, '' for legacy. */
export function toolResultText(out: Outcome, modernTail: string): string {
  if (out.ok) {
    const json = out.envelope.json;
    return `{"content":[{"type":"text","text":${JSON.stringify(json)}}],"structuredContent":${json},"isError":false${modernTail}}`;
  }
  return `{"content":[{"type":"text","text":${JSON.stringify(actionableMessage(out.error))}}],"isError":true${modernTail}}`;
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
