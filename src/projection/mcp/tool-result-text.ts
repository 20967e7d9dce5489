/**
 * Engine outcomes as MCP tools/call results (protocol.md, "Both eras"): the envelope
 * as text content and as structuredContent; tool failures as isError results with a
 * message the model can act on. Built as text so the envelope is serialized once.
 *
 * A call waiting for someone's approval (docs/spec-language.md, "Confirmation and
 * approval") also carries the approval itself as `_meta["mcp-beaver/approval"]`, in both
 * eras: the same `details.approval` object REST answers with, and its filled message in
 * the text, so a host can show the person what is being asked without parsing prose.
 */
import type { EngineError } from '../../engine/error-catalogue.js';
import type { Done, Failed } from '../../engine/execute.js';

/** The `_meta` key of the approval a waiting call's result carries. */
const APPROVAL_META = 'mcp-beaver/approval';

/** A result's closing members: `resultType` and `_meta` (its JSON text) in 2026-07-28. */
export interface ResultTail {
  readonly modern: boolean;
  /** The `_meta` every modern result carries, as JSON text. */
  readonly meta: string;
}

/** What the text block says of an envelope over budget-bytes, after its coverage. */
const ELSEWHERE = `,"result_in":"structuredContent","note":${JSON.stringify(
  'The envelope is over budget-bytes, so its result is sent once, as structuredContent, and not repeated in this text. Ask for less (a smaller page, fewer fields) to have it here too.',
)}}`;

/** The text of a tools/call result, ending with the era's tail. */
export function toolResultText(out: Done | Failed, tail: ResultTail): string {
  if (out.ok) {
    const { json, coverageJson, envelope } = out.envelope;
    return `{"content":[{"type":"text","text":${textOf(json, coverageJson, envelope.coverage.over_budget)}}],"structuredContent":${json},"isError":false${tailText(tail, tail.modern ? tail.meta : undefined)}}`;
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
 * The text block of a result, as a JSON string: the envelope itself while it is within
 * budget-bytes, as the protocol suggests for clients that read only text. Past that the
 * result would be sent a second time, escaped (a quote costs two bytes), to clients whose
 * smallest known cap it already exceeds: the text then holds the coverage and says where
 * the result is, and structuredContent alone carries it.
 */
function textOf(json: string, coverageJson: string, overBudget: boolean): string {
  return JSON.stringify(overBudget ? `{"coverage":${coverageJson}${ELSEWHERE}` : json);
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
