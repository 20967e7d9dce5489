/**
 * A tool result saying that the call waits for someone's approval (issue 29): the
 * gateway answers an `approve` grant with an isError result whose text starts
 * `APPROVAL_REQUIRED:` and names the approval's page ("... it is at <url>. Repeat ...").
 * The page is read from `_meta["mcp-beaver/approval"].url` where the gateway puts it,
 * and from the text only for an older gateway that did not.
 */
import type { ToolCallResult } from '../mcp-wire/tool-call-result.js';

/** The exit code of a call that waits for someone's approval: repeat it once approved. */
export const APPROVAL_EXIT = 3;

export interface ApprovalWait {
  /** The approval's page, where someone holding the scope decides. */
  readonly url: string;
  /** What the approver is asked, when the gateway declared the approval. */
  readonly message?: string;
  /** The scope that decides, and when the approval lapses (ISO 8601), likewise. */
  readonly scope?: string;
  readonly expiresAt?: string;
  /** The result's own text, for a gateway that declared nothing: it names the page. */
  readonly text: string;
}

export function approvalRequired(result: ToolCallResult): ApprovalWait | undefined {
  if (result.isError !== true) return undefined;
  const text = result.content?.find((b) => b.type === 'text')?.text ?? '';
  if (!text.startsWith('APPROVAL_REQUIRED:')) return undefined;
  const declared = result._meta?.['mcp-beaver/approval'] as Record<string, unknown> | undefined;
  if (typeof declared?.url === 'string' && declared.url !== '')
    return {
      url: declared.url,
      text,
      ...(typeof declared.message === 'string' && { message: declared.message }),
      ...(typeof declared.scope === 'string' && { scope: declared.scope }),
      ...(typeof declared.expires_at === 'string' && { expiresAt: declared.expires_at }),
    };
  // The sentence ends with a period after the URL; a URL does not end with one.
  const url =
    / at (\S+?)\.?(?=\s|$)/.exec(text)?.[1] ?? /https?:\/\/\S+?(?=\.?(\s|$))/.exec(text)?.[0];
  return { url: url ?? '(the gateway named no page; see the message above)', text };
}

/**
 * What `call` tells of a call that waits for approval, said once: the page on a line of
 * its own and what is asked, unless the server's URL question (`shown`, during the call)
 * already showed that page; then how to go on. A gateway that declared no approval
 * object gets its own text, which names the page.
 */
export function approvalWaitText(wait: ApprovalWait, shown: boolean): string {
  const next = `Run the same command again once it is approved (exit ${APPROVAL_EXIT} until then).\n`;
  if (shown) return `APPROVAL_REQUIRED: waiting for the approval above. ${next}`;
  if (wait.message === undefined) return `${wait.text}\n${next}`;
  const who = [
    wait.scope !== undefined && `someone holding ${wait.scope} decides`,
    wait.expiresAt !== undefined && `until ${wait.expiresAt}`,
  ].filter(Boolean);
  return (
    `Approval needed: ${wait.message}${who.length > 0 ? ` (${who.join(', ')})` : ''}\n` +
    `  ${wait.url}\nAPPROVAL_REQUIRED: ${next}`
  );
}
