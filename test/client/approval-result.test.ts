import { describe, expect, it } from 'vitest';
import { approvalRequired, approvalWaitText } from '../../src/client/approval-result.js';

describe('mcp-beaver call reading an APPROVAL_REQUIRED result', () => {
  it('takes the page from _meta["mcp-beaver/approval"] when the gateway declares it', () => {
    const wait = approvalRequired({
      isError: true,
      content: [{ type: 'text', text: 'APPROVAL_REQUIRED: this call waits for approval.' }],
      _meta: { 'mcp-beaver/approval': { id: 'a1', url: 'http://127.0.0.1:1/approvals/a1' } },
    });
    expect(wait).toMatchObject({ url: 'http://127.0.0.1:1/approvals/a1' });
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
    expect(wait).toMatchObject({ url: 'http://127.0.0.1:1/approvals/b2' });
  });

  it('is not an approval wait for a result that is not an error', () => {
    expect(
      approvalRequired({ content: [{ type: 'text', text: 'APPROVAL_REQUIRED: no' }] }),
    ).toBeUndefined();
  });
});

describe('mcp-beaver call telling of a call that waits for approval', () => {
  const TEXT =
    'APPROVAL_REQUIRED: this call waits for approval by someone holding the scope payments:approve (until 2026-12-06T15:00:00.000Z); it is at http://127.0.0.1:1/approvals/c3. Repeat the same call once it is approved.\nAsked of the approver: Refund 500 cents';
  const declared = approvalRequired({
    isError: true,
    content: [{ type: 'text', text: TEXT }],
    _meta: {
      'mcp-beaver/approval': {
        id: 'c3',
        url: 'http://127.0.0.1:1/approvals/c3',
        message: 'Refund 500 cents',
        scope: 'payments:approve',
        expires_at: '2026-12-06T15:00:00.000Z',
      },
    },
  })!;

  it('names the page once, with what is asked and how to go on', () => {
    expect(approvalWaitText(declared, false)).toBe(
      'Approval needed: Refund 500 cents (someone holding payments:approve decides, until 2026-12-06T15:00:00.000Z)\n' +
        '  http://127.0.0.1:1/approvals/c3\n' +
        'APPROVAL_REQUIRED: Run the same command again once it is approved (exit 3 until then).\n',
    );
  });

  it('does not name the page again when the URL question already showed it', () => {
    const text = approvalWaitText(declared, true);
    expect(text).toBe(
      'APPROVAL_REQUIRED: waiting for the approval above. Run the same command again once it is approved (exit 3 until then).\n',
    );
  });

  it("gives a gateway's own text, which names the page, when it declared no approval", () => {
    const bare = approvalRequired({ isError: true, content: [{ type: 'text', text: TEXT }] })!;
    const text = approvalWaitText(bare, false);
    expect(text).toBe(
      `${TEXT}\nRun the same command again once it is approved (exit 3 until then).\n`,
    );
    expect(text.split('http://127.0.0.1:1/approvals/c3')).toHaveLength(2);
  });
});
