import { describe, expect, it } from 'vitest';
import { approvalRequired } from '../../src/client/approval-result.js';

describe('mcp-beaver call reading an APPROVAL_REQUIRED result', () => {
  it('takes the page from _meta["mcp-beaver/approval"] when the gateway declares it', () => {
    const wait = approvalRequired({
      isError: true,
      content: [{ type: 'text', text: 'APPROVAL_REQUIRED: this call waits for approval.' }],
      _meta: { 'mcp-beaver/approval': { id: 'a1', url: 'http://127.0.0.1:1/approvals/a1' } },
    });
    expect(wait).toEqual({ url: 'http://127.0.0.1:1/approvals/a1' });
  });

  it('falls back to the page named in the text for a gateway that sends no _meta', () => {
    const wait = approvalRequired({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'APPROVAL_REQUIRED: it is at http://127.0.0.1:1/approvals/b2. Repeat the call.',
        },
      ],
    });
    expect(wait).toEqual({ url: 'http://127.0.0.1:1/approvals/b2' });
  });

  it('is not an approval wait for a result that is not an error', () => {
    expect(
      approvalRequired({ content: [{ type: 'text', text: 'APPROVAL_REQUIRED: no' }] }),
    ).toBeUndefined();
  });
});
