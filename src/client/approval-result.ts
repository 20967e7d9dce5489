/**
 * A tool result saying that the call waits for someone's approval (issue 29): the
 * gateway answers an `approve` grant with an isError result whose text starts
 * `APPROVAL_REQUIRED:` and names the approval's page ("... it is at <url>. Repeat ...").
 * The page is read from `_meta["mcp-beaver/approval"].url` where the gateway puts it,
 * and from the text only for an older gateway that did not.
 */
import type { ToolCallResult } from '../mcp-wire/tool-call-result.js';

export interface ApprovalWait {
  /** The approval's page, where someone holding the scope decides. */
  readonly url: string;
}

export function approvalRequired(result: ToolCallResult): ApprovalWait | undefined {
  if (result.isError !== true) return undefined;
  const text = result.content?.find((b) => b.type === 'text')?.text ?? '';
  if (!text.startsWith('APPROVAL_REQUIRED:')) return undefined;
  const declared = (result._meta?.['mcp-beaver/approval'] as { url?: unknown } | undefined)?.url;
  if (typeof declared === 'string' && declared !== '') return { url: declared };
  // The sentence ends with a period after the URL; a URL does not end with one.
  const url =
    / at (\S+?)\.?(?=\s|$)/.exec(text)?.[1] ?? /https?:\/\/\S+?(?=\.?(\s|$))/.exec(text)?.[0];
  return { url: url ?? '(the gateway named no page; see the message above)' };
}
