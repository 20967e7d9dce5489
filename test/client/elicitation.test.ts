/**
 * How `call` answers a server's elicitation (issue 29), on streams: the y/N question a
 * person answers on a terminal, --yes, no terminal, a form it cannot fill, and a URL.
 * The CLI end to end (test/cli/consent-cli.test.ts) runs without a terminal; this is
 * where the terminal's answers are tested.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ElicitRequestParams } from '@modelcontextprotocol/client';
import { answerElicitation, askConfirmation } from '../../src/client/elicitation.js';

function streams(): { input: PassThrough; output: PassThrough; written: () => string } {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (b: Buffer) => (text += b.toString()));
  return { input, output, written: () => text };
}

const CONFIRM_FORM: ElicitRequestParams = {
  mode: 'form',
  message: 'Delete order 42?',
  requestedSchema: {
    type: 'object',
    properties: { confirm: { type: 'boolean' } },
    required: ['confirm'],
  },
};

describe('askConfirmation (the y/N question)', () => {
  it.each([
    ['y\n', 'accept'],
    ['YES\n', 'accept'],
    [' yes \n', 'accept'],
    ['n\n', 'decline'],
    ['\n', 'decline'],
    ['yess\n', 'decline'],
  ])('reads %j as %s', async (line, expected) => {
    const s = streams();
    const answer = askConfirmation('Delete order 42?', s.input, s.output);
    s.input.write(line);
    expect(await answer).toBe(expected);
    expect(s.written()).toBe('Delete order 42?\nConfirm? [y/N] ');
  });

  it('cancels at the end of input (Ctrl-D) before a line', async () => {
    const s = streams();
    const answer = askConfirmation('Delete order 42?', s.input, s.output);
    s.input.end();
    expect(await answer).toBe('cancel');
  });

  it('shows the message with its control characters made visible', async () => {
    const s = streams();
    const answer = askConfirmation('Delete \u001b[2Jorder?', s.input, s.output);
    s.input.write('y\n');
    await answer;
    expect(s.written()).toBe('Delete \\u001b[2Jorder?\nConfirm? [y/N] ');
  });
});

describe('answerElicitation', () => {
  it('asks on a terminal and answers accept with confirm: true on yes', async () => {
    const s = streams();
    const answer = answerElicitation(CONFIRM_FORM, { ...s, interactive: true, yes: false });
    s.input.write('y\n');
    expect(await answer).toEqual({ action: 'accept', content: { confirm: true } });
  });

  it('passes decline and cancel on as they are', async () => {
    const a = streams();
    const declined = answerElicitation(CONFIRM_FORM, { ...a, interactive: true, yes: false });
    a.input.write('no\n');
    expect(await declined).toEqual({ action: 'decline' });
    const b = streams();
    const cancelled = answerElicitation(CONFIRM_FORM, { ...b, interactive: true, yes: false });
    b.input.end();
    expect(await cancelled).toEqual({ action: 'cancel' });
  });

  it('declines without a terminal, saying --yes would confirm; accepts with --yes', async () => {
    const a = streams();
    expect(await answerElicitation(CONFIRM_FORM, { ...a, interactive: false, yes: false })).toEqual(
      { action: 'decline' },
    );
    expect(a.written()).toContain('or --yes to confirm without asking');
    const b = streams();
    expect(await answerElicitation(CONFIRM_FORM, { ...b, interactive: false, yes: true })).toEqual({
      action: 'accept',
      content: { confirm: true },
    });
  });

  it('declines a form asking more than one boolean confirm, even with --yes', async () => {
    const s = streams();
    const form: ElicitRequestParams = {
      mode: 'form',
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    };
    expect(await answerElicitation(form, { ...s, interactive: true, yes: true })).toEqual({
      action: 'decline',
    });
    expect(s.written()).toContain('cannot fill');
  });

  it('shows a URL elicitation and accepts it, so that the call is repeated', async () => {
    const s = streams();
    const url: ElicitRequestParams = {
      mode: 'url',
      message: 'Refund 5 cents',
      url: 'http://127.0.0.1:1/approvals/abc',
      elicitationId: 'e1',
    } as ElicitRequestParams;
    expect(await answerElicitation(url, { ...s, interactive: false, yes: false })).toEqual({
      action: 'accept',
    });
    expect(s.written()).toBe(
      'Approval needed: Refund 5 cents\n  http://127.0.0.1:1/approvals/abc\n',
    );
  });
});
